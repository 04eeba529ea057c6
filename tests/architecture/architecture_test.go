// Package architecture checks that the code keeps the layering that
// docs/architecture.md describes, and the import grouping goimports makes.
package architecture

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/cfzt/cfzt-runner/"

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// layers reads the package table of docs/architecture.md: each row's
// package, in order.
func layers(t *testing.T, root string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(doc, []byte("| package | holds |"))
	if start < 0 {
		t.Fatal("docs/architecture.md has no package table")
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(doc[start:]))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "|") {
			break
		}
		if m := row.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	if len(out) < 10 {
		t.Fatalf("the package table lists %d packages", len(out))
	}
	return out
}

// harness tells the test harnesses and tools, which may import anything.
func harness(pkg string) bool {
	for _, p := range []string{"internal/", "tests/", "e2e"} {
		if strings.HasPrefix(pkg, p) {
			return true
		}
	}
	return strings.HasPrefix(pkg, "cmd/") && pkg != "cmd/cfzt-runner"
}

// rowOf is the index of pkg's row: its own, else its nearest listed
// parent's; "modules/*" holds every package under modules/.
func rowOf(rows []string, pkg string) int {
	for p := pkg; p != "." && p != ""; p = filepath.Dir(p) {
		for i, r := range rows {
			if r == p || strings.HasSuffix(r, "/*") && strings.HasPrefix(p+"/", strings.TrimSuffix(r, "*")) {
				return i
			}
		}
	}
	return -1
}

// TestLayering: every product package imports only packages of its own
// row or above it in docs/architecture.md's table, and never internal/.
func TestLayering(t *testing.T) {
	root := repoRoot(t)
	rows := layers(t, root)
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		if harness(pkg) {
			continue
		}
		own := rowOf(rows, pkg)
		if own < 0 {
			t.Errorf("%s has no row in docs/architecture.md's package table (nor a listed parent)", pkg)
			continue
		}
		checked++
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			if strings.HasPrefix(dep, "internal/") {
				t.Errorf("%s imports the test harness %s", pkg, dep)
				continue
			}
			if r := rowOf(rows, dep); r > own {
				t.Errorf("%s (row %q) imports %s (row %q), which sits below it in docs/architecture.md", pkg, rows[own], dep, rows[r])
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d packages checked", checked)
	}
}

// TestImportGrouping: import blocks are grouped as goimports groups them:
// the standard library first, then the other packages, never mixed.
func TestImportGrouping(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "*.go")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	for _, name := range strings.Fields(string(out)) {
		if strings.Contains(name, "/testdata/") {
			continue
		}
		if msg := checkGrouping(filepath.Join(root, name)); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

func checkGrouping(path string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
	if err != nil {
		return ""
	}
	lastLine, group, seenOther := 0, -1, false
	groupStd := map[int]bool{}
	for _, spec := range f.Imports {
		line := fset.Position(spec.Pos()).Line
		if spec.Doc != nil {
			line = fset.Position(spec.Doc.Pos()).Line
		}
		if group < 0 || line > lastLine+1 {
			group++
		}
		lastLine = fset.Position(spec.End()).Line
		p := strings.Trim(spec.Path.Value, `"`)
		std := !strings.Contains(strings.SplitN(p, "/", 2)[0], ".")
		if prev, ok := groupStd[group]; ok && prev != std {
			return "the standard library and other packages share an import group (at " + p + ")"
		}
		groupStd[group] = std
		if std && seenOther {
			return "a standard-library import group comes after another group (at " + p + ")"
		}
		if !std {
			seenOther = true
		}
	}
	return ""
}

// TestTemplateLanguageDoesNoIO: engine/template is the language alone. The
// plugins that run processes, fetch URLs or look up users are
// engine/lookup's, handed to template.New; the language imports neither
// that library nor the packages that do such I/O (reading the templates a
// template includes is the language's own).
func TestTemplateLanguageDoesNoIO(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "./engine/template/")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := map[string]bool{
		"os/exec": true, "os/user": true, "syscall": true, "net": true, "net/http": true,
		module + "engine/urls": true, module + "engine/lookup": true,
	}
	imports := strings.Fields(string(out))
	if len(imports) < 10 {
		t.Fatalf("go list gave %d imports of engine/template", len(imports))
	}
	for _, imp := range imports {
		if forbidden[imp] {
			t.Errorf("engine/template imports %s: I/O belongs in engine/lookup (docs/architecture.md, Where a plugin goes)", imp)
		}
	}
}
