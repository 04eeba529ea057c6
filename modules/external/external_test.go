package external

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want Style
	}{
		{"shell script", "#!/bin/sh\necho '{}'\n", StyleOld},
		{"want json", "#!/bin/sh\n# WANT_JSON\n", StyleWantJSON},
		{"binary", "\x7fELF\x00\x01", StyleBinary},
		{"module_utils import", "#!/usr/bin/python\nfrom ansible.module_utils.basic import AnsibleModule\n", StyleNewPython},
		{"module_utils package import", "#!/usr/bin/python\nimport ansible.module_utils.basic\n", StyleNewPython},
		{"relative import", "#!/usr/bin/python\nfrom ..module_utils.x import y\n", StyleNewPython},
		{"collection import", "#!/usr/bin/python\nfrom ansible_collections.ns.c.plugins.module_utils.u import f\n", StyleNewPython},
		{"replacer", "#!/usr/bin/python\n#<<INCLUDE_ANSIBLE_MODULE_COMMON>>\n", StyleNewPython},
		{"json args", "#!/bin/sh\nARGS='<<INCLUDE_ANSIBLE_MODULE_JSON_ARGS>>'\n", StyleJSONArgs},
		{"powershell", "#!powershell\n#Requires -Module Ansible.ModuleUtils.Legacy\n", StylePowerShell},
		{"binary wins over want json", "#!/bin/sh\n# WANT_JSON \x00\n", StyleBinary},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Classify([]byte(tc.src)))
		})
	}
}

func TestJSONLines(t *testing.T) {
	for _, tc := range []struct {
		name, out, text, junk, err string
	}{
		{name: "plain", out: "{\"a\": 1}\n", text: `{"a": 1}`},
		{name: "leading noise", out: "motd\n  {\"a\": 1}\n", text: `  {"a": 1}`},
		{name: "trailing junk", out: "{\"a\": 1}\nbye\n", text: `{"a": 1}`, junk: "bye"},
		{name: "blank trailing lines", out: "{\"a\": 1}\n\n", text: `{"a": 1}`},
		{name: "no object", out: "hello\n", err: "No start of json char found"},
		{name: "lists are not results", out: "[1]\n", err: "No start of json char found"},
		{name: "never closed", out: "{\"a\":\n", err: "No end of json char found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, junk, err := jsonLines(tc.out)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.text, text)
			require.Equal(t, tc.junk, junk)
		})
	}
}

func TestOldStyleArgs(t *testing.T) {
	args := value.DictOf("name", "world", "msg", "it's here", "empty", "", "flag", true, "n", 3, "none", nil)
	require.Equal(t, `name=world msg='it'"'"'s here' empty='' flag=True n=3 none=None `, oldStyleArgs(args))
}

// writeModule writes an executable module file into dir.
func writeModule(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(src), 0o755))
	return p
}

// runModule runs a module file with args as the task's arguments.
func runModule(t *testing.T, h *moduletest.Host, path string, check bool, args ...any) (*value.Dict, error) {
	t.Helper()
	req := h.Request(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), args...)
	req.ModuleFile, req.Check = path, check
	req.Env = map[string]string{"ANSIBLE_LOCAL_TEMP": t.TempDir()}
	return Module{}.Run(req)
}

func TestRunStyles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file, src string
		check           bool
		args            []any
		want            *value.Dict
	}{
		{name: "old style gets key=value words", file: "old.sh", args: []any{"who", "a b"},
			src:  "#!/bin/sh\n. \"$1\"\necho \"{\\\"who\\\": \\\"$who\\\", \\\"check\\\": \\\"$_ansible_check_mode\\\"}\"\n",
			want: value.DictOf("who", "a b", "check", "False")},
		{name: "check mode reaches the module", file: "oldcheck.sh", check: true,
			src:  "#!/bin/sh\n. \"$1\"\necho \"{\\\"check\\\": \\\"$_ansible_check_mode\\\"}\"\n",
			want: value.DictOf("check", "True")},
		{name: "want json gets a JSON file", file: "wj", args: []any{"n", 1},
			src:  "#!/bin/sh\n# WANT_JSON\ngrep -q '\"n\": 1' \"$1\" && echo '{\"changed\": true}'\n",
			want: value.DictOf("changed", true)},
		{name: "json args are substituted", file: "ja.sh", args: []any{"n", 2},
			src:  "#!/bin/sh\ncase '<<INCLUDE_ANSIBLE_MODULE_JSON_ARGS>>' in *'\"n\": 2'*) echo '{\"ok\": 1}';; esac\n",
			want: value.DictOf("ok", 1)},
		{name: "internal keys of the output are dropped", file: "internal.sh",
			src:  "#!/bin/sh\necho '{\"_ansible_no_log\": false, \"a\": 1}'\n",
			want: value.DictOf("a", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := moduletest.NewHost(nil)
			res, err := runModule(t, h, writeModule(t, dir, tc.file, tc.src), tc.check, tc.args...)
			require.NoError(t, err)
			require.Equal(t, tc.want, res)
		})
	}
}

func TestRunFailures(t *testing.T) {
	dir := t.TempDir()
	h := moduletest.NewHost(nil)

	res, err := runModule(t, h, writeModule(t, dir, "bad.sh", "#!/bin/sh\necho nope\necho err >&2\nexit 2\n"), false)
	require.NoError(t, err)
	require.Equal(t, "Module result deserialization failed: No start of json char found", res.Default("msg", nil))
	require.Equal(t, "nope\n", res.Default("module_stdout", nil))
	require.Equal(t, "err\n", res.Default("module_stderr", nil))
	require.Equal(t, 2, res.Default("rc", nil))
	require.True(t, module.IsActionFailure(res))
	d, ok := res.Default("exception", nil).(*diag.Diagnostic)
	require.True(t, ok)
	require.Equal(t, "See stdout/stderr for the returned output.", d.Help)

	res, err = runModule(t, h, writeModule(t, dir, "nointerp.sh", "#!/no/such/interpreter\n"), false)
	require.NoError(t, err)
	require.Equal(t, "The module interpreter '/no/such/interpreter' was not found.", res.Default("msg", nil))

	_, err = runModule(t, h, writeModule(t, dir, "noshebang", "echo '{}'\n"), false)
	require.EqualError(t, err, "module (noshebang) is missing interpreter line")

	res, err = runModule(t, h, writeModule(t, dir, "junk.sh", "#!/bin/sh\necho '{\"a\": 1}'\necho later\n"), false)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("a", 1), res)
	require.Equal(t, []string{"Module invocation had junk after the JSON data: later"}, h.Warnings)
}

// oracleDistPackages is where hack/install-oracle.sh puts ansible-core's
// Python packages, which hold the module_utils new-style modules import.
func oracleDistPackages(t *testing.T) string {
	home, _ := os.UserHomeDir()
	p := filepath.Join(home, ".cache", "ansible-oracle", "root", "usr", "lib", "python3", "dist-packages")
	if _, err := os.Stat(filepath.Join(p, "ansible", "module_utils", "basic.py")); err != nil {
		t.Skip("ansible-core's module_utils are not installed (hack/install-oracle.sh)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	return p
}

const newStyleModule = `#!/usr/bin/python
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.greeting import greet

def main():
    m = AnsibleModule(argument_spec=dict(name=dict(type='str', required=True)), supports_check_mode=%s)
    m.exit_json(changed=True, msg=greet(m.params['name']))

main()
`

// newStyleCases run newStyleModule with module_utils/greeting.py beside
// it, under ansible-core's module_utils or cfzt-runner's compatibility
// package: both must give AnsibleModule's results.
var newStyleCases = []struct {
	name, checkSupport string
	check              bool
	args               []any
	want               map[string]any
}{
	{name: "runs with module_utils beside it", checkSupport: "True", args: []any{"name", "bob"},
		want: map[string]any{"changed": true, "msg": "hello bob"}},
	{name: "argument spec errors come from AnsibleModule", checkSupport: "True",
		want: map[string]any{"failed": true, "msg": "missing required arguments: name"}},
	{name: "unknown arguments name the module", checkSupport: "True", args: []any{"name", "x", "colour", "red"},
		want: map[string]any{"failed": true, "msg": "Unsupported parameters for (newstyle) module: colour. Supported parameters include: name."}},
	{name: "check mode unsupported is skipped", checkSupport: "False", check: true, args: []any{"name", "x"},
		want: map[string]any{"skipped": true, "msg": "remote module (newstyle) does not support check mode"}},
}

// runNewStyleCases runs newStyleCases with the PYTHONPATH and interpreter
// given.
func runNewStyleCases(t *testing.T, pythonPath string, vars *value.Dict) {
	dir := t.TempDir()
	utils := filepath.Join(dir, "module_utils")
	writeModule(t, utils, "greeting.py", "def greet(name):\n    return 'hello ' + name\n")
	for _, tc := range newStyleCases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeModule(t, filepath.Join(dir, "library"), "newstyle.py", strings.Replace(newStyleModule, "%s", tc.checkSupport, 1))
			h := moduletest.NewHost(vars)
			req := h.Request("newstyle", tc.args...)
			req.ModuleFile, req.Check, req.ModuleUtils = path, tc.check, []string{utils}
			req.Env = map[string]string{"PYTHONPATH": pythonPath, "ANSIBLE_LOCAL_TEMP": t.TempDir()}
			res, err := Module{}.Run(req)
			require.NoError(t, err)
			for k, v := range tc.want {
				got, _ := res.Get(k)
				require.Equal(t, v, got, "%s in %s", k, value.Repr(res))
			}
		})
	}
}

func TestNewStylePython(t *testing.T) {
	runNewStyleCases(t, oracleDistPackages(t), nil)
}

// TestMain lets the test binary stand in for cfzt-runner as the
// compatibility package's validator (os.Executable is the test binary).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ValidateCommand {
		if err := ValidateArgs(os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestNewStylePythonWithCompatibilityPackage(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	probe := exec.Command("python3", "-c", "import ansible.module_utils.basic")
	probe.Env = []string{"PATH=" + os.Getenv("PATH")}
	if probe.Run() == nil {
		t.Skip("python3 can import ansible.module_utils here")
	}
	runNewStyleCases(t, "", value.DictOf("ansible_python_interpreter", "python3"))
}

func TestPythonInterpreter(t *testing.T) {
	t.Setenv("ANSIBLE_PYTHON_INTERPRETER", "")
	bin := t.TempDir()
	writeModule(t, bin, "python3", "#!/bin/sh\n")
	for _, tc := range []struct {
		name string
		vars *value.Dict
		env  map[string]string
		want string
	}{
		{name: "discovered on PATH", env: map[string]string{"PATH": bin}, want: filepath.Join(bin, "python3")},
		{name: "the host variable", vars: value.DictOf("ansible_python_interpreter", "/opt/py"), env: map[string]string{"PATH": bin}, want: "/opt/py"},
		{name: "auto discovers", vars: value.DictOf("ansible_python_interpreter", "auto_silent"), env: map[string]string{"PATH": bin}, want: filepath.Join(bin, "python3")},
		{name: "the setting", env: map[string]string{"PATH": bin, "ANSIBLE_PYTHON_INTERPRETER": "/usr/local/bin/py"}, want: "/usr/local/bin/py"},
		{name: "nothing found", env: map[string]string{"PATH": t.TempDir()}, want: "/usr/bin/python3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := moduletest.NewHost(tc.vars).Request("m")
			req.Env = tc.env
			require.Equal(t, tc.want, pythonInterpreter(req))
		})
	}
}

// TestCrashResultOnlyItsOwnShape: a module's output is untrusted. Only the
// exact result the bootstrap prints for a raised exception (failed, and an
// exception holding a list of strings under crashKey) becomes the
// "Module failed: ..." error; anything else carrying the key, however
// shaped, is left as the module returned it and does not panic.
func TestCrashResultOnlyItsOwnShape(t *testing.T) {
	own := value.DictOf("failed", true, "exception", value.DictOf(crashKey, []any{"outer", "inner"}, "handling", false))
	crashResult(own)
	err, ok := own.Default("exception", nil).(error)
	require.True(t, ok)
	require.Equal(t, "outer: inner", err.Error())
	require.False(t, own.Has("msg"))

	for name, res := range map[string]*value.Dict{
		"not failed":        value.DictOf("failed", false, "exception", value.DictOf(crashKey, []any{"x"})),
		"more keys":         value.DictOf("failed", true, "msg", "mine", "exception", value.DictOf(crashKey, []any{"x"})),
		"not a list":        value.DictOf("failed", true, "exception", value.DictOf(crashKey, "x")),
		"not strings":       value.DictOf("failed", true, "exception", value.DictOf(crashKey, []any{1, value.DictOf()})),
		"empty list":        value.DictOf("failed", true, "exception", value.DictOf(crashKey, []any{})),
		"exception as text": value.DictOf("failed", true, "exception", "Traceback ..."),
	} {
		before := value.JSON(res, value.JSONOptions{})
		crashResult(res)
		require.Equal(t, before, value.JSON(res, value.JSONOptions{}), name)
	}
}
