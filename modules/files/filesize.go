package files

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// filesizeDef is community.general.filesize (plugins/modules/filesize.py):
// dd creates, grows or truncates a file to a size given with or without a
// unit, then the file common arguments are applied.
func filesizeDef() *moduleDef {
	return &moduleDef{name: "filesize", checkMode: true, run: runFilesize, spec: &argspec.Spec{
		Options: withFileCommon(
			argspec.Option{Name: "path", Type: argspec.Path, Required: true},
			argspec.Option{Name: "size", Type: argspec.Raw, Required: true},
			argspec.Option{Name: "blocksize", Type: argspec.Raw},
			argspec.Option{Name: "source", Type: argspec.Path, Default: "/dev/zero"},
			argspec.Option{Name: "sparse", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "force", Type: argspec.Bool, Default: false},
		),
	}}
}

func filesizeEntry() module.Entry {
	d := filesizeDef()
	return module.Entry{FQCN: "community.general.filesize", Module: module.Func(d.runTask)}
}

// sizeUnit is one of the module's units, in the order of its SIZE_UNITS
// dict, which bytes_to_human walks.
type sizeUnit struct {
	name  string
	bytes float64
}

var sizeUnits = func() []sizeUnit {
	out := []sizeUnit{{"B", 1}}
	for i, letter := range "kmgtpezy" {
		up := strings.ToUpper(string(letter))
		si, iec := math.Pow(1000, float64(i+1)), math.Pow(1024, float64(i+1))
		if letter == 'k' {
			out = append(out, sizeUnit{"kB", si}, sizeUnit{"KB", si})
		} else {
			out = append(out, sizeUnit{up + "B", si}, sizeUnit{string(letter) + "B", si})
		}
		out = append(out, sizeUnit{up + "iB", iec}, sizeUnit{up, iec}, sizeUnit{string(letter), iec})
	}
	return out
}()

func unitBytes(name string) (float64, bool) {
	for _, u := range sizeUnits {
		if u.name == name {
			return u.bytes, true
		}
	}
	return 0, false
}

// unitNames lists the units as the module's error does: sorted by size,
// ties in the dict's order.
func unitNames() string {
	var names []string
	order := append([]sizeUnit(nil), sizeUnits...)
	// A stable insertion sort by size keeps the dict order of equal sizes.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && order[j].bytes < order[j-1].bytes; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	for _, u := range order {
		names = append(names, u.name)
	}
	return strings.Join(names, ", ")
}

// filesizeError is the module's AssertionError, which it turns into
// fail_json(msg).
type filesizeError string

func (e filesizeError) Error() string { return string(e) }

// crash is an exception the module does not catch (float() of what is
// left once the unit is gone, a unit that is no pattern): the module
// fails with it as a traceback does.
type crash struct{ err error }

func (c crash) Error() string { return c.err.Error() }

// sizeString is size_string: str() of an int, float or string.
func sizeString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		if x {
			return "True", nil
		}
		return "False", nil
	case int, float64, *big.Int:
		return value.Repr(x), nil
	}
	return "", filesizeError(fmt.Sprintf("invalid value type (<class '%s'>): size must be integer, float or string", value.TypeName(v)))
}

// splitSizeUnit is split_size_unit: the number, the unit ("" for none) and
// the size in bytes.
func splitSizeUnit(s string, isInt bool) (float64, string, int64, error) {
	unit := strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) || r == '.' {
			return -1
		}
		return r
	}, s))
	num := s
	if unit != "" {
		// The module removes the unit with re.sub(unit, ''): the unit is
		// a pattern there, whatever it holds.
		re, err := py.CompilePattern(unit, 0)
		if err != nil {
			return 0, "", 0, crash{err}
		}
		spans, err := re.FindAllStringSubmatchIndex(s, -1)
		if err != nil {
			return 0, "", 0, crash{err}
		}
		var b strings.Builder
		last := 0
		for _, sp := range spans {
			b.WriteString(s[last:sp[0]])
			last = sp[1]
		}
		b.WriteString(s[last:])
		num = b.String()
	}
	f, err := py.Float(strings.TrimSpace(num))
	if err != nil {
		return 0, "", 0, crash{err}
	}
	if isInt && (unit == "B" || unit == "") && math.Trunc(f) != f {
		return 0, "", 0, filesizeError("invalid blocksize value: bytes require an integer value")
	}
	product := f
	if unit != "" {
		ub, ok := unitBytes(unit)
		if !ok {
			return 0, "", 0, filesizeError(fmt.Sprintf("invalid size unit (%s): unit must be one of %s, or none.", unit, unitNames()))
		}
		product = f * ub
	}
	product = math.RoundToEven(product)
	if math.IsNaN(product) || math.Abs(product) >= math.MaxInt64/2 {
		// Python's ints have no bound; a file this size cannot exist.
		return 0, "", 0, filesizeError(fmt.Sprintf("size %s is too large", s))
	}
	return f, unit, int64(product), nil
}

// smartBlocksize is smart_blocksize: a block size that divides the total.
func smartBlocksize(size float64, unit string, product, bsize int64) (int64, error) {
	if product%bsize == 0 {
		return bsize, nil
	}
	ub, _ := unitBytes(unit)
	unitSize := int64(ub)
	if size == math.Trunc(size) {
		if unitSize > 1<<20 {
			if unitSize%5 != 0 {
				return 1 << 20, nil
			}
			return 1000 * 1000, nil
		}
		return unitSize, nil
	}
	if unit == "B" {
		return 0, filesizeError("byte is the smallest unit and requires an integer value")
	}
	if 0 < product && product < bsize {
		return product, nil
	}
	for _, b := range []int64{1024, 1000, 512, 256, 128, 100, 64, 32, 16, 10, 8, 4, 2} {
		if product%b == 0 {
			return b, nil
		}
	}
	return 1, nil
}

// bytesToHuman is bytes_to_human: the size in the largest SI (or IEC)
// unit under which it stays below 1000 (1024), rounded to two places.
func bytesToHuman(size int64, iec bool) string {
	unit, ub := "B", 1.0
	for _, u := range sizeUnits {
		if float64(size) < u.bytes {
			continue
		}
		q := float64(size) / u.bytes
		if iec {
			if !strings.Contains(u.name, "i") || q >= 1024 {
				continue
			}
		} else if math.Mod(u.bytes, 5) != 0 || q >= 1000 {
			continue
		}
		unit, ub = u.name, u.bytes
	}
	h := py.RoundFloat(float64(size)/ub, 2)
	num := value.Repr(h)
	if unit == "B" {
		num = strconv.FormatInt(int64(h), 10)
	}
	unit = strings.ToUpper(unit[:1]) + unit[1:]
	if unit == "KB" {
		unit = "kB"
	}
	return num + " " + unit
}

// sizeSpec is size_spec: the blocks, block size and bytes to reach.
type sizeSpec struct {
	blocks, blocksize, bytes int64
}

func (s sizeSpec) dict() *value.Dict {
	return value.DictOf("blocks", int(s.blocks), "blocksize", int(s.blocksize), "bytes", int(s.bytes),
		"iec", bytesToHuman(s.bytes, true), "si", bytesToHuman(s.bytes, false))
}

func newSizeSpec(size, blocksize string) (sizeSpec, error) {
	_, _, bsize, err := splitSizeUnit(blocksize, true)
	if err != nil {
		return sizeSpec{}, err
	}
	if bsize == 0 {
		return sizeSpec{}, filesizeError("block size cannot be equal to zero")
	}
	if bsize < 0 {
		return sizeSpec{}, filesizeError(fmt.Sprintf("invalid block size %s", blocksize))
	}
	v, unit, product, err := splitSizeUnit(size, false)
	if err != nil {
		return sizeSpec{}, err
	}
	var blocks int64
	if unit == "" {
		blocks = int64(math.Ceil(v))
	} else {
		if bsize, err = smartBlocksize(v, unit, product, bsize); err != nil {
			return sizeSpec{}, err
		}
		blocks = int64(math.Ceil(float64(product) / float64(bsize)))
	}
	if blocks < 0 || (bsize > 0 && blocks > math.MaxInt64/bsize) {
		return sizeSpec{}, filesizeError(fmt.Sprintf("invalid size %s", size))
	}
	return sizeSpec{blocks: blocks, blocksize: bsize, bytes: blocks * bsize}, nil
}

// currentSize is current_size: the size of the regular file at path, or
// nil when nothing is there.
func currentSize(path string) (any, error) {
	st, err := os.Stat(path)
	if err != nil {
		// Missing, a dangling link or unreachable: os.path.exists is
		// false for each.
		return nil, nil
	}
	if !st.Mode().IsRegular() {
		return nil, filesizeError(path + " exists but is not a regular file")
	}
	return int(st.Size()), nil
}

func runFilesize(m *amod) (*value.Dict, error) {
	path := m.p.Str("path")
	sparse, force := m.p.Bool("sparse"), m.p.Bool("force")
	if sparse && force {
		return nil, module.Fail("parameters values are mutually exclusive: force=true|sparse=true")
	}
	dir := filepath.Dir(path)
	if !strings.Contains(path, "/") {
		dir = ""
	}
	if dir == "" || !exists(dir) {
		return nil, module.Fail("parent directory of the file must exist prior to run this module")
	}
	rawBS, _ := m.p.Get("blocksize")
	if !value.Truthy(rawBS) {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			return nil, module.Fail(err.Error())
		}
		rawBS = int(st.Frsize)
	}
	rawSize, _ := m.p.Get("size")
	spec, initial, err := filesizeInputs(path, rawSize, rawBS)
	if err != nil {
		if c, ok := err.(crash); ok {
			return module.Crashed(c.err), nil
		}
		if fe, ok := err.(filesizeError); ok {
			return nil, module.Fail(string(fe))
		}
		return nil, err
	}
	sizeStr, _ := sizeString(rawSize)
	expected := int(spec.bytes)
	sizeDiff := expected
	if n, _ := initial.(int); n != 0 {
		sizeDiff = expected - n
	}
	diff := value.DictOf("before", value.DictOf("size", initial), "after", value.DictOf("size", expected))
	res := value.DictOf("changed", force, "size_diff", sizeDiff, "path", path, "filesize", spec.dict())

	dd := binPath("dd")
	if dd == "" {
		return nil, module.Fail(`Failed to find required executable "dd" in paths: ` + binSearchPath())
	}
	fileSize := initial
	if initial != expected || force {
		argv := []string{dd, "if=" + m.p.Str("source"), "of=" + path}
		argv = append(argv, ddSeekCount(spec, initial, sizeDiff, sparse, force, exists(path))...)
		res.Set("cmd", strings.Join(argv, " "))
		if m.check {
			res.Set("changed", true)
		} else {
			out, err := runArgv(m.req, argv)
			if err != nil {
				return nil, err
			}
			res.Set("rc", out.rc)
			res.Set("stderr", out.stderr)
			after, err := currentSize(path)
			if err != nil {
				return nil, module.Fail(err.Error())
			}
			fileSize = after
			diffSide(diff, "after").Set("size", after)
			res.Set("size_diff", after)
			if n, _ := initial.(int); n != 0 {
				a, _ := after.(int)
				res.Set("size_diff", a-n)
			}
			if !force {
				res.Set("changed", after != initial)
			}
			if out.rc != 0 {
				return nil, failWith(res, fmt.Sprintf("dd error while creating file %s with size %s from source %s: see stderr for details",
					path, sizeStr, m.p.Str("source")))
			}
			if after != expected {
				return nil, failWith(res, fmt.Sprintf("module error while creating file %s with size %s from source %s: file is %s bytes long",
					path, sizeStr, m.p.Str("source"), value.Repr(after)))
			}
		}
	}
	target := path
	if isLink(path) {
		target = py.Realpath(path)
		res.Set("path", target)
	}
	if fileSize != nil {
		fa := m.fileArgs(target)
		changed, err := m.setFSAttributes(fa, value.Truthy(res.Default("changed", false)), diff)
		if err != nil {
			return nil, err
		}
		res.Set("changed", changed)
	}
	res.Set("diff", diff)
	return res, nil
}

// filesizeInputs reads the size and block size and the file's size now.
func filesizeInputs(path string, rawSize, rawBS any) (sizeSpec, any, error) {
	size, err := sizeString(rawSize)
	if err != nil {
		return sizeSpec{}, nil, err
	}
	bs, err := sizeString(rawBS)
	if err != nil {
		return sizeSpec{}, nil, err
	}
	initial, err := currentSize(path)
	if err != nil {
		return sizeSpec{}, nil, err
	}
	spec, err := newSizeSpec(size, bs)
	return spec, initial, err
}

// ddSeekCount is complete_dd_cmdline's bs, seek and count: dd writes only
// the blocks past what the file keeps.
func ddSeekCount(spec sizeSpec, initial any, sizeDiff int, sparse, force, present bool) []string {
	bs := spec.blocksize
	cur, _ := initial.(int)
	var seek int64
	switch {
	case sparse:
		seek = spec.blocks
	case force || !present:
		seek = 0
	case sizeDiff < 0:
		seek = spec.blocks
	case int64(sizeDiff)%bs != 0:
		seek = int64(cur)/bs + 1
	default:
		seek = int64(cur) / bs
	}
	return []string{"bs=" + strconv.FormatInt(bs, 10), "seek=" + strconv.FormatInt(seek, 10),
		"count=" + strconv.FormatInt(spec.blocks-seek, 10)}
}

// failWith is fail_json(msg=msg, **res).
func failWith(res *value.Dict, msg string) error {
	kv := []any{}
	for _, k := range res.Keys() {
		if k == "changed" || k == "msg" {
			continue
		}
		kv = append(kv, k, res.Default(k, nil))
	}
	f := module.Fail(msg, kv...)
	f.Result.Set("changed", res.Default("changed", false))
	return f
}

// binSearchPath is the list get_bin_path reports when it finds nothing.
func binSearchPath() string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	for _, d := range []string{"/sbin", "/usr/sbin", "/usr/local/sbin"} {
		if exists(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return strings.Join(dirs, ":")
}
