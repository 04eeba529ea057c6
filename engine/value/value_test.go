package value

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func decodeOne(t *testing.T, src string) any {
	t.Helper()
	docs, _, err := DecodeYAML("t.yml", []byte(src))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	return docs[0]
}

func TestYAML11Scalars(t *testing.T) {
	d := decodeOne(t, `
on_: on
yes_: Yes
off_: OFF
y_: y
quoted: 'on'
tagged: !!str on
octal: 017
py12octal: 0o17
hex: 0x1A
sexa: 12:30
sexaf: 1:30.5
under: 1_000
exp: 1e3
float: 1.5e+3
null_: ~
big: 18446744073709551616
unsafe: !unsafe '{{ x }}'
`).(*Dict)
	want := map[string]any{
		"on_": true, "yes_": true, "off_": false, "y_": "y", "quoted": "on", "tagged": "on",
		"octal": 15, "sexa": 750, "sexaf": 90.5, "py12octal": "0o17", "hex": 26, "under": 1000, "exp": "1e3", "float": 1500.0,
		"null_": nil, "unsafe": Unsafe("{{ x }}"),
	}
	for k, w := range want {
		v, _ := d.Get(k)
		require.Equal(t, w, v, k)
	}
	b, _ := d.Get("big")
	require.Equal(t, "18446744073709551616", b.(*big.Int).String())
}

func TestTypedKeys(t *testing.T) {
	d := decodeOne(t, "{1: one, on: yes, key: v}").(*Dict)
	require.Equal(t, 1, d.Key("1"))
	require.Equal(t, true, d.Key("True"))
	require.Equal(t, "key", d.Key("key"))
	require.Equal(t, "{1: 'one', True: True, 'key': 'v'}", Repr(d))
	require.Equal(t, `{"1": "one", "true": true, "key": "v"}`, JSON(d, JSONOptions{}))
	require.Equal(t, true, d.Copy().Key("True"))
}

func TestJSONOptions(t *testing.T) {
	v := DictOf("b", []any{1, 2.5, nil}, "a", "é")
	require.Equal(t, `{"b": [1, 2.5, null], "a": "é"}`, JSON(v, JSONOptions{}))
	require.Equal(t, `{"a":"\u00e9","b":[1,2.5,null]}`, JSON(v, JSONOptions{SortKeys: true, EnsureASCII: true, ItemSep: ",", KeySep: ":"}))
	tab := "\t"
	require.Equal(t, "{\n\t\"b\": [\n\t\t1,\n\t\t2.5,\n\t\tnull\n\t],\n\t\"a\": \"é\"\n}", JSON(v, JSONOptions{IndentString: &tab}))
	_, err := EncodeJSON(struct{}{}, JSONOptions{})
	require.EqualError(t, err, "Object of type struct {} is not JSON serializable")
}

func TestBigIntOps(t *testing.T) {
	b, _ := new(big.Int).SetString("18446744073709551616", 10)
	require.True(t, Equal(b, new(big.Int).Set(b)))
	require.False(t, Equal(b, 1))
	c, err := Compare(1, b)
	require.NoError(t, err)
	require.Equal(t, -1, c)
	require.Equal(t, "int", TypeName(b))
	require.Equal(t, 5, NormInt(big.NewInt(5)))
	require.True(t, Equal(1, 1.0) && Equal(true, 1))
}

func TestDuplicateKeys(t *testing.T) {
	_, nodes, err := DecodeYAML("t.yml", []byte("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n"))
	require.NoError(t, err)
	dups := DuplicateKeys("t.yml", nodes[0])
	require.Equal(t, []DuplicateKey{{Key: "c", Pos: Pos{File: "t.yml", Line: 4, Col: 3}}, {Key: "a", Pos: Pos{File: "t.yml", Line: 5, Col: 1}}}, dups)
}

func TestDictIndexAcrossSizes(t *testing.T) {
	d := NewDict(0)
	for i := range 20 {
		d.Set(fmt.Sprintf("k%d", i), i)
	}
	d.Set("k3", "again") // keeps its position
	keys := d.Keys()
	for i := 19; i >= 0; i -= 2 {
		d.Delete(fmt.Sprintf("k%d", i))
	}
	if len(keys) != 20 || keys[1] != "k1" {
		t.Fatalf("a Keys slice handed out earlier changed: %v", keys)
	}
	if got := strings.Join(d.Keys(), ","); got != "k0,k2,k4,k6,k8,k10,k12,k14,k16,k18" {
		t.Fatalf("keys after deletes: %s", got)
	}
	for i := range 20 {
		v, ok := d.Get(fmt.Sprintf("k%d", i))
		if ok != (i%2 == 0) || (ok && v != i) {
			t.Fatalf("k%d = %v, %v", i, v, ok)
		}
	}
	d.Set("k1", 1) // back to a new key at the end
	if ks := d.Keys(); ks[len(ks)-1] != "k1" || d.Len() != 11 {
		t.Fatalf("keys %v", ks)
	}
	for _, k := range []string{"k0", "k2", "k4", "k6", "k8", "k10", "k12", "k14"} {
		d.Delete(k)
	}
	if got := strings.Join(d.Keys(), ","); got != "k16,k18,k1" || d.Default("k18", nil) != 18 {
		t.Fatalf("small again: %s", got)
	}
}

func TestVaultTagIsVaulted(t *testing.T) {
	src := "a: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\nb: '!vault'\nc: !vault 'x'\n"
	docs, _, err := DecodeYAML("f.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d := docs[0].(*Dict)
	a, _ := d.Get("a")
	if v, ok := a.(Vaulted); !ok || v.Text != "$ANSIBLE_VAULT;1.1;AES256\n6162\n" || v.Pos != (Pos{File: "f.yml", Line: 1, Col: 4}) {
		t.Fatalf("a = %#v", a)
	}
	if b, _ := d.Get("b"); b != "!vault" {
		t.Fatalf("b = %#v", b)
	}
	if c, _ := d.Get("c"); c != (Vaulted{Text: "x", Pos: Pos{File: "f.yml", Line: 5, Col: 4}}) {
		t.Fatalf("c = %#v", c)
	}
	if got := Repr(a); got != QuoteString("$ANSIBLE_VAULT;1.1;AES256\n6162\n") {
		t.Fatalf("repr = %s", got)
	}
}
