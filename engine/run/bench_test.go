package run_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/modules/builtin"
)

// loopPlaybook is a playbook with a 1,000-item loop of set_fact that
// accumulates with combine and filters with selectattr, the shape of the
// operator roles' bookkeeping.
func loopPlaybook(n int) string {
	var b strings.Builder
	b.WriteString("- hosts: localhost\n  gather_facts: false\n  vars:\n    entries:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "      - {name: host-%04d, zone: z%d, enabled: %t, port: %d}\n", i, i%7, i%3 != 0, 8000+i)
	}
	b.WriteString(`  tasks:
    - name: index entries
      ansible.builtin.set_fact:
        by_name: "{{ by_name | default({}) | combine({item.name: {'zone': item.zone, 'port': item.port}}) }}"
        enabled_in_zone: "{{ entries | selectattr('zone', 'equalto', item.zone) | selectattr('enabled') | list | length }}"
      loop: "{{ entries }}"
      loop_control:
        label: "{{ item.name }}"
    - name: summary
      ansible.builtin.debug:
        msg: "{{ by_name | length }} {{ enabled_in_zone }}"
`)
	return b.String()
}

// BenchmarkLoop1000 runs the 1,000-item loop in-process, output discarded.
func BenchmarkLoop1000(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "playbook.yml")
	if err := os.WriteFile(path, []byte(loopPlaybook(1000)), 0o644); err != nil {
		b.Fatal(err)
	}
	reg, err := module.NewRegistry(builtin.Entries())
	if err != nil {
		b.Fatal(err)
	}
	loader := playbook.NewLoader(reg, nil)
	pb, err := loader.LoadPlaybook(path)
	if err != nil {
		b.Fatal(err)
	}
	eng := template.New(lookup.Libraries()...)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		inv := inventory.New()
		if err := inv.AddSource("localhost,"); err != nil {
			b.Fatal(err)
		}
		disp := &display.Default{Out: io.Discard, Err: io.Discard}
		r := &run.Runner{Engine: eng, Modules: reg, Loader: loader, Display: disp, Inventory: inv, Stdout: io.Discard}
		if rc := r.Run(context.Background(), pb); rc != 0 {
			b.Fatalf("exit code %d", rc)
		}
	}
}

// TestLoopPlaybookResult checks what the benchmark computes, so that the
// figures measure a correct run.
func TestLoopPlaybookResult(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": loopPlaybook(30)})
	rec := f.run(t)
	if f.rc != 0 {
		t.Fatal(f.out.String())
	}
	// The last entry (host-0029) is in zone z1; zone 1 holds 1, 8, 15,
	// 22, 29, of which 1, 8, 22, 29 are enabled (i % 3 != 0).
	if got := rec.msg(t, "summary", "localhost"); got != "30 4" {
		t.Fatalf("summary = %v", got)
	}
}
