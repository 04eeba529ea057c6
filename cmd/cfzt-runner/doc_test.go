package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runDocArgs runs `cfzt-runner doc ARGS` and returns its exit status,
// stdout and stderr.
func runDocArgs(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := runDoc(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// optionsLayout returns the OPTIONS section of an ansible-doc page
// without the descriptions: the heading, the blank lines, each option's
// marker and name, and its keys (the lines indented by eight spaces).
// A description's continuation lines are indented further (at least
// eleven spaces at the top level), so they drop out.
func optionsLayout(t *testing.T, page string) []string {
	t.Helper()
	_, after, ok := strings.Cut(page, "OPTIONS (= indicates it is required):\n")
	require.True(t, ok, "no OPTIONS section in:\n%s", page)
	if i := strings.Index(after, "\nATTRIBUTES:"); i >= 0 {
		after = after[:i]
	}
	key := regexp.MustCompile(`^([=-] \S+)`)
	field := regexp.MustCompile(`^ {8}[a-z_]+:`)
	out := []string{"OPTIONS (= indicates it is required):"}
	for _, l := range strings.Split(strings.TrimRight(after, "\n"), "\n") {
		switch {
		case l == "":
			out = append(out, l)
		case key.MatchString(l):
			out = append(out, key.FindString(l))
		case field.MatchString(l):
			out = append(out, l)
		}
	}
	return out
}

func readOracle(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/doc/" + name)
	require.NoError(t, err, "recorded by testdata/doc/record.sh")
	return string(b)
}

// TestDocModuleOptionsLayout: `doc MODULE` prints the argument spec in
// ansible-doc's layout. For ping and stat, whose documentation and
// argument spec agree, the OPTIONS section equals the oracle's line for
// line once the oracle's descriptions are taken out.
func TestDocModuleOptionsLayout(t *testing.T) {
	for _, m := range []string{"ping", "stat"} {
		t.Run(m, func(t *testing.T) {
			code, out, errOut := runDocArgs(m)
			require.Equal(t, 0, code, errOut)
			want := readOracle(t, "ansible-doc-"+m+".txt")
			assert.Equal(t, optionsLayout(t, want), optionsLayout(t, out))
			assert.True(t, strings.HasPrefix(out, "> MODULE ansible.builtin."+m+" (built into cfzt-runner)\n\n  "), out)
			assert.Contains(t, out, "carries no descriptions", "the page says where descriptions are missing")
		})
	}
}

// TestDocGetentAgainstOracle: getent's documented defaults are written
// differently from its argument spec ('yes' for True), so only the
// options, their required marks and types are compared.
func TestDocGetentAgainstOracle(t *testing.T) {
	code, out, _ := runDocArgs("ansible.builtin.getent")
	require.Equal(t, 0, code)
	keep := func(lines []string) []string {
		var o []string
		for _, l := range lines {
			if strings.HasPrefix(l, "= ") || strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "        type:") {
				o = append(o, l)
			}
		}
		return o
	}
	assert.Equal(t, keep(optionsLayout(t, readOracle(t, "ansible-doc-getent.txt"))), keep(optionsLayout(t, out)))
}

// TestDocSubOptions: a dict option's sub-options are nested under
// "suboptions:" as ansible-doc nests them, the internal options ("_"
// names) are left out, and a list default is written in flow style.
func TestDocSubOptions(t *testing.T) {
	code, out, _ := runDocArgs("kubernetes.core.k8s")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "\n- server_side_apply\n        default: null\n        type: dict\n        suboptions:\n\n        = field_manager\n          type: str\n")
	code, out, _ = runDocArgs("command")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "_raw_params")
	assert.NotContains(t, out, "_uses_shell")
	code, out, _ = runDocArgs("find")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "\n- patterns\n        aliases: [pattern]\n        default: []\n        elements: str\n        type: list\n")
}

// TestDocListLayout: `doc -l` lays the list out as `ansible-doc -l` does
// when not on a terminal: names padded to the longest, then the
// description padded so that every line is 79-4 characters wide. Every
// ansible.builtin module listed exists in ansible-core (cfzt-runner
// invents none).
func TestDocListLayout(t *testing.T) {
	oracle := strings.Split(strings.TrimRight(readOracle(t, "ansible-doc-l-builtin.txt"), "\n"), "\n")
	oracleNames := map[string]bool{}
	for _, l := range oracle {
		name := strings.Fields(l)[0]
		oracleNames[name] = true
		if !strings.HasSuffix(l, "...") {
			assert.Len(t, l, 75, "oracle line %q", l)
		}
	}
	code, out, errOut := runDocArgs("-l", "ansible.builtin")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.NotEmpty(t, lines)
	width := 0
	for _, l := range lines {
		width = max(width, len(strings.Fields(l)[0]))
	}
	for _, l := range lines {
		name := strings.Fields(l)[0]
		assert.Len(t, l, 75, "line %q", l)
		assert.Equal(t, byte(' '), l[width], "description starts after the longest name: %q", l)
		assert.NotEqual(t, byte(' '), l[width+1], "%q", l)
		assert.True(t, oracleNames[name], "%s is not an ansible-core module", name)
	}
	assert.Contains(t, out, "ansible.builtin.ping ")
	assert.NotContains(t, out, "kubernetes.core.k8s", "the collection filter applies")

	_, all, _ := runDocArgs("-l")
	for _, m := range []string{"kubernetes.core.k8s_info", "operator_sdk.util.k8s_status", "community.general.ini_file"} {
		assert.Contains(t, all, m+" ")
	}
}

// TestDocTemplatePlugins: -t filter, lookup and test list the template
// plugins by fully qualified name, and a plugin's page says what is
// missing.
func TestDocTemplatePlugins(t *testing.T) {
	for kind, want := range map[string]string{"filter": "ansible.builtin.to_json", "lookup": "ansible.builtin.file", "test": "ansible.builtin.version"} {
		code, out, errOut := runDocArgs("-t", kind, "-l")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, want+" ", kind)
		code, out, _ = runDocArgs("-t", kind, want)
		require.Equal(t, 0, code)
		assert.Contains(t, out, "> "+strings.ToUpper(kind)+" "+want+" (built into cfzt-runner)")
	}
	_, out, _ := runDocArgs("-t", "lookup", "-l")
	assert.Contains(t, out, "k8s ", "the k8s lookup that the k8s package registers is listed")
}

// TestDocErrors: an unknown module or type is a clear error, not a crash;
// a module that checks its own arguments says so.
func TestDocErrors(t *testing.T) {
	code, _, errOut := runDocArgs("no_such_module")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "module no_such_module not found in cfzt-runner's modules (cfzt-runner doc -l lists them)")
	code, _, errOut = runDocArgs("-t", "callback", "-l")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "invalid choice: 'callback'")
	code, _, errOut = runDocArgs()
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "give a plugin name")
	code, out, _ := runDocArgs("set_fact")
	assert.Equal(t, 0, code)
	assert.Contains(t, strings.Join(strings.Fields(out), " "), "checks its arguments in its own code")
	assert.NotContains(t, out, "OPTIONS")
	code, out, _ = runDocArgs("--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, docUsage)
}

// TestDocSpecsCover: every module with an argument spec in its package
// is a registered module (a Specs() entry with a typo would never show).
func TestDocSpecsCover(t *testing.T) {
	registered := map[string]bool{}
	for _, set := range moduleSets() {
		for _, e := range set {
			registered[e.FQCN] = true
		}
	}
	for name, spec := range moduleSpecs() {
		assert.True(t, registered[name], "%s has a spec but no module", name)
		assert.NotNil(t, spec, name)
	}
}
