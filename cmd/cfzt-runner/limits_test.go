package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryCapKB is the address space each hostile run gets (ulimit -v): far
// less than any of the inputs below would take if it were built.
const memoryCapKB = 3 << 20 // 3 GiB

// limitCase is a hostile playbook and how ansible-core 2.19 ends it.
type limitCase struct {
	name  string
	files map[string]string
	rc    int
	// want is in stdout (for a failed task) or stderr (for an error that
	// ends the run).
	want string
}

func hostileTask(expr string) string {
	return "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - name: hostile\n      ansible.builtin.debug:\n        msg: \"" + expr + "\"\n"
}

var limitCases = []limitCase{
	{"string repetition", map[string]string{"site.yml": hostileTask("{{ ('a' * 10**10) | length }}")}, 2,
		"Error while resolving value for 'msg': Error rendering template."},
	{"list repetition", map[string]string{"site.yml": hostileTask("{{ ([1, 2] * 10**9) | length }}")}, 2,
		"Error while resolving value for 'msg': Error rendering template."},
	{"range listed", map[string]string{"site.yml": hostileTask("{{ range(10**8) | list | length }}")}, 2,
		"The filter plugin 'ansible.builtin.list' failed."},
	{"doubling string", map[string]string{"site.yml": hostileTask(
		"{% set s = namespace(v='a') %}{% for i in range(60) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v | length }}")}, 2,
		"Error rendering template."},
	{"doubling list", map[string]string{"site.yml": hostileTask(
		"{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}")}, 2,
		"Error rendering template."},
	{"output without end", map[string]string{"site.yml": hostileTask(
		"{% for i in range(10**9) %}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa{{ 'b' * 40 }}{% endfor %}")}, 2,
		"Error while resolving value for 'msg': Error rendering template."},
	{"macro recursion", map[string]string{"site.yml": hostileTask("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}")}, 2,
		"Recursive loop detected in template: maximum recursion depth exceeded"},
	{"deep nesting", map[string]string{"site.yml": hostileTask(
		"{% set ns = namespace(x=[]) %}{% for i in range(10**7) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x | to_json }}")}, 2,
		"Recursive loop detected in template: maximum recursion depth exceeded"},
	{"deep YAML", map[string]string{"site.yml": "- hosts: localhost\n  gather_facts: false\n  vars:\n    v: " +
		strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + "\n  tasks:\n    - ansible.builtin.debug: {msg: \"{{ v | length }}\"}\n"}, 4,
		"found collections nested more than 1000 levels deep"},
	{"deep from_yaml", map[string]string{"site.yml": hostileTask(
		"{{ ('[' * 50000 ~ ']' * 50000) | from_yaml | length }}")}, 2,
		"collections nested more than 1000 levels deep"},
	{"alias bomb", map[string]string{"site.yml": `- hosts: localhost
  gather_facts: false
  vars:
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
  tasks:
    - ansible.builtin.debug: {msg: "{{ i | length }}"}
`}, 0, `"msg": 9`},
	{"include recursion", map[string]string{
		"site.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.include_tasks: self.yml\n    - ansible.builtin.debug: {msg: after}\n",
		"self.yml": "- ansible.builtin.debug: {msg: x}\n- ansible.builtin.include_tasks: self.yml\n"}, 250,
		"[ERROR]: Unexpected Exception, this is probably a bug: maximum recursion depth exceeded while calling a Python object\n"},
}

// TestLimitsUnderMemoryCap runs each hostile playbook in a process whose
// address space is capped at 3 GiB, and checks that it ends as
// ansible-core 2.19 ends it (the exit status and message recorded from
// the oracle, or for deep data and deep YAML, where the oracle crashes
// with a RecursionError, cfzt-runner's own clean error), never with the
// Go runtime's out-of-memory or stack-overflow crash.
func TestLimitsUnderMemoryCap(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh for ulimit")
	}
	// A machine whose hard limit is below the cap cannot raise it: the
	// test would measure that limit, not ours.
	if out, err := exec.Command("sh", "-c", `ulimit -v "$1"`, "sh", strconv.Itoa(memoryCapKB)).CombinedOutput(); err != nil {
		t.Skipf("cannot set ulimit -v %d here: %v %s", memoryCapKB, err, out)
	}
	for _, lc := range limitCases {
		t.Run(lc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range lc.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "hosts"), []byte("localhost ansible_connection=local\n"), 0o644))
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v "$1" && shift && exec "$@"`, "sh",
				strconv.Itoa(memoryCapKB), os.Args[0], "-i", "hosts", "site.yml")
			cmd.Dir = dir
			cmd.Env = []string{"CFZT_TEST_CLI=1", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "ANSIBLE_NOCOLOR=1", "LC_ALL=C.UTF-8", "TZ=UTC"}
			var out, errOut strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			rc := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				rc = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			for _, crash := range []string{"fatal error:", "out of memory", "goroutine ", "stack overflow", "panic:"} {
				require.NotContains(t, errOut.String(), crash, "the run crashed")
			}
			assert.Equal(t, lc.rc, rc, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String()+errOut.String(), lc.want)
			if lc.name == "include recursion" {
				// As the oracle: the file shown 247 times, the task after
				// the include never run, no recap.
				assert.Equal(t, 247, strings.Count(out.String(), "included: "))
				assert.NotContains(t, out.String(), "after")
				assert.NotContains(t, out.String(), "PLAY RECAP")
			}
		})
	}
}
