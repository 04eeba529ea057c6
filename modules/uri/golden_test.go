package uri_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/testbin"
	"github.com/cfzt/cfzt-runner/modules/uri/uritest"
)

// TestGolden runs the playbooks of testdata/golden with cfzt-runner against
// the uritest servers and compares the normalized stdout with what the
// reference ansible-playbook printed (recorded by testdata/record.sh).
func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cfzt-runner")
	}
	tmp := t.TempDir()
	bin, err := testbin.Runner(tmp)
	if err != nil {
		t.Fatal(err)
	}
	certs := filepath.Join(tmp, "certs")
	if err := os.Mkdir(certs, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := uritest.Start(certs)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	vars, _ := json.Marshal(srv.Vars())
	varsFile := filepath.Join(tmp, "vars.json")
	if err := os.WriteFile(varsFile, vars, 0o644); err != nil {
		t.Fatal(err)
	}
	playDir, _ := filepath.Abs("testdata/golden")
	books, _ := filepath.Glob("testdata/golden/*.yml")
	for _, book := range books {
		name := strings.TrimSuffix(filepath.Base(book), ".yml")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(playDir, name+".out"))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "-e", "@"+varsFile, name+".yml")
			cmd.Dir = playDir
			cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + tmp, "LC_ALL=C.UTF-8", "TZ=UTC", "ANSIBLE_NOCOLOR=1"}
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			_ = cmd.Run()
			got := uritest.Normalize(stdout.String(), map[string]string{playDir: "PLAYDIR", certs: "CERTDIR"})
			if got != string(want) {
				t.Errorf("output differs from ansible-playbook's (testdata/golden/%s.out):\n%s", name, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff renders a unified-style diff of two texts by lines (LCS).
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	shown := 0
	i, j := 0, 0
	for (i < len(a) || j < len(b)) && shown < 60 {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&out, "+%d cfzt-runner:      %s\n", j+1, b[j])
			j++
			shown++
		default:
			fmt.Fprintf(&out, "-%d ansible-playbook: %s\n", i+1, a[i])
			i++
			shown++
		}
	}
	return out.String()
}
