// Package normalize makes playbook output comparable across runs and
// between ansible-playbook and cfzt-runner: it replaces what a fresh
// apiserver assigns (UIDs, resourceVersions, timestamps, ports, temporary
// paths, field managers) with placeholders and drops the warnings that
// only the reference installation prints.
package normalize

import (
	"regexp"
	"strings"
)

// dropped are whole lines that only the reference environment prints: the
// Debian python3-kubernetes version warning and the implicit-localhost
// notices.
var dropped = []string{
	"[WARNING]: kubernetes<24.2.0 is not supported or tested. Some features may not work.",
	"[WARNING]: No inventory was parsed, only implicit localhost is available",
	"[WARNING]: provided hosts list is empty, only localhost is available. Note that the implicit localhost does not match 'all'",
}

var rules = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "<TIME>"},
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<UID>"},
	{regexp.MustCompile(`((?:\\*["'])resourceVersion(?:\\*["']): (?:\\*["']))\d+`), "${1}<RV>"},
	{regexp.MustCompile(`(resourceVersion=)\d+`), "${1}<RV>"},
	{regexp.MustCompile(`((?:\\*["'])manager(?:\\*["']): (?:\\*["']))[A-Za-z0-9_.-]+`), "${1}<MANAGER>"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:<PORT>"},
	{regexp.MustCompile(`host='127\.0\.0\.1', port=\d+`), "host='127.0.0.1', port=<PORT>"},
	{regexp.MustCompile(`/tmp/kubetest-\d+`), "<KUBETEST_DIR>"},
}

// Output normalizes a playbook run's combined output. dir, the directory
// the playbooks were run from, becomes <DIR> wherever it is printed.
func Output(s, dir string) string {
	if dir != "" {
		s = strings.ReplaceAll(s, strings.TrimRight(dir, "/")+"/", "<DIR>/")
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		keep := true
		for _, d := range dropped {
			if strings.TrimRight(l, " ") == d {
				keep = false
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	s = strings.Join(out, "\n")
	for _, r := range rules {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}
