package command

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// BenchmarkCommand runs `command: echo hi` end to end: argument handling,
// one process, the result. Most of the time is the fork and exec.
func BenchmarkCommand(b *testing.B) {
	h := moduletest.NewHost(value.DictOf("playbook_dir", b.TempDir()))
	for b.Loop() {
		res, err := commandAction(h.Request("command", "_raw_params", "echo hi"))
		if err != nil || res.Default("stdout", nil) != "hi" {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkCommandArguments is the module's own work without the process:
// validation and splitting of a long line, in check mode.
func BenchmarkCommandArguments(b *testing.B) {
	h := moduletest.NewHost(value.DictOf("playbook_dir", b.TempDir()))
	line := `kubectl --namespace "my ns" get pods -o 'jsonpath={.items[*].metadata.name}' --selector app=web`
	for b.Loop() {
		req := h.Request("command", "_raw_params", line, "chdir", "/tmp")
		req.Check = true
		if _, err := commandAction(req); err != nil {
			b.Fatal(err)
		}
	}
}
