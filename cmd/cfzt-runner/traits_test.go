package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/catalog"
	"github.com/cfzt/cfzt-runner/operator/sdk"
)

// The traits below were tables of module names in engine/run,
// operator/ and cmd/ until each module declared its own in its entry.
// They are kept here, as ansible-core and the collections define them,
// so that a module that forgets a trait (or claims one it lacks) fails
// this test rather than behaving differently from ansible-playbook.

// noAsyncActions are the actions whose ansible-core action plugin does
// not support async ("This action (X) does not support async.").
var noAsyncActions = []string{
	"ansible.builtin.add_host", "ansible.builtin.assemble", "ansible.builtin.assert",
	"ansible.builtin.async_status", "ansible.builtin.copy", "ansible.builtin.debug",
	"ansible.builtin.fail", "ansible.builtin.fetch", "ansible.builtin.gather_facts", "ansible.builtin.group_by",
	"ansible.builtin.include_vars", "ansible.builtin.pause", "ansible.builtin.raw",
	"ansible.builtin.reboot", "ansible.builtin.script", "ansible.builtin.set_fact",
	"ansible.builtin.set_stats", "ansible.builtin.template", "ansible.builtin.unarchive",
	"ansible.builtin.validate_argument_spec", "ansible.builtin.wait_for_connection",
	"kubernetes.core.helm", "kubernetes.core.helm_info", "kubernetes.core.helm_plugin",
	"kubernetes.core.helm_plugin_info", "kubernetes.core.helm_repository",
	"kubernetes.core.k8s", "kubernetes.core.k8s_cluster_info", "kubernetes.core.k8s_cp",
	"kubernetes.core.k8s_drain", "kubernetes.core.k8s_exec", "kubernetes.core.k8s_info",
	"kubernetes.core.k8s_json_patch", "kubernetes.core.k8s_log", "kubernetes.core.k8s_rollback",
	"kubernetes.core.k8s_scale", "kubernetes.core.k8s_service",
}

// connectionlessActions never use the host's connection under
// ansible-core (their action plugins run on the controller only).
var connectionlessActions = []string{
	"ansible.builtin.debug", "ansible.builtin.set_fact", "ansible.builtin.assert",
	"ansible.builtin.fail", "ansible.builtin.pause", "ansible.builtin.set_stats",
	"ansible.builtin.validate_argument_spec", "ansible.builtin.add_host",
	"ansible.builtin.group_by",
}

// actionGroups are the module_defaults groups of kubernetes.core's
// meta/runtime.yml; ansible-core's own group k8s extends kubernetes.core's.
var actionGroups = map[string][]string{
	"kubernetes.core.k8s": {"kubernetes.core.k8s", "kubernetes.core.k8s_exec", "kubernetes.core.k8s_info",
		"kubernetes.core.k8s_log", "kubernetes.core.k8s_scale", "kubernetes.core.k8s_service",
		"kubernetes.core.k8s_cp", "kubernetes.core.k8s_drain"},
	"kubernetes.core.helm": {"kubernetes.core.helm", "kubernetes.core.helm_info", "kubernetes.core.helm_repository"},
}

// infoOf is the module.Info the loader gives a task naming fqcn: the
// registry's, else the catalog's for a module cfzt-runner lacks.
func infoOf(t *testing.T, reg *module.Registry, fqcn string) module.Info {
	t.Helper()
	if info, ok := reg.Lookup(fqcn); ok {
		return info
	}
	return module.UnimplementedInfo(fqcn)
}

func testRegistry(t *testing.T) *module.Registry {
	t.Helper()
	reg, err := module.NewRegistry(append(moduleSets(), sdk.ModuleEntries(sdk.NewMetrics("", "")))...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestModuleTraitsMatchAnsible(t *testing.T) {
	reg := testRegistry(t)
	flagged := map[module.Flags][]string{module.NoAsync: noAsyncActions, module.Connectionless: connectionlessActions,
		module.KubeRead: {"kubernetes.core.k8s_info"}, module.ConditionsArg: {"ansible.builtin.assert"},
		module.ExpressionVar: {"ansible.builtin.debug"}, module.Requeues: {"operator_sdk.util.requeue_after"}}
	for flag, names := range flagged {
		for _, name := range names {
			if infoOf(t, reg, name).Flags&flag == 0 {
				t.Errorf("%s lacks trait %#x", name, flag)
			}
		}
		for _, e := range reg.Entries() {
			if e.Flags&flag != 0 && !slices.Contains(names, e.FQCN) {
				t.Errorf("%s claims trait %#x, which ansible-core does not give it", e.FQCN, flag)
			}
		}
	}
	for group, members := range actionGroups {
		for _, name := range members {
			info := infoOf(t, reg, name)
			if !info.InGroup(group) {
				t.Errorf("%s is not in group %s", name, group)
			}
			if group == "kubernetes.core.k8s" && (!info.InGroup("k8s") || !info.InGroup("ansible.builtin.k8s")) {
				t.Errorf("%s is not in ansible-core's group k8s, which extends kubernetes.core.k8s", name)
			}
		}
	}
	for _, e := range reg.Entries() {
		info, _ := reg.Lookup(e.FQCN)
		for group, members := range actionGroups {
			if info.InGroup(group) != slices.Contains(members, e.FQCN) {
				t.Errorf("%s: membership of %s is %v, want %v", e.FQCN, group, info.InGroup(group), !info.InGroup(group))
			}
		}
	}
	if info := infoOf(t, reg, "kubernetes.core.k8s_info"); info.InGroup("helm") || info.InGroup("kubernetes.core.helm_info") {
		t.Error("k8s_info is in a group that does not hold it")
	}
}

// TestCatalogTraitsOnlyForMissingModules keeps each module's traits in one
// place: the catalog knows those of modules cfzt-runner lacks, and an
// implemented module declares its own in its entry.
func TestCatalogTraitsOnlyForMissingModules(t *testing.T) {
	reg := testRegistry(t)
	for _, name := range catalog.TraitNames() {
		if _, ok := reg.Lookup(name); ok {
			t.Errorf("%s is implemented: its traits belong in its module.Entry, not in the catalog", name)
		}
	}
}

// namePrefixes start the fully qualified names of the collections
// cfzt-runner ships modules for.
var namePrefixes = []string{"ansible.builtin.", "ansible.legacy.", "kubernetes.core.", "community.", "operator_sdk."}

// nameLiteralsAllowed are the string literals of such names that the
// executor, the operators and the command line may hold, by file, with why.
var nameLiteralsAllowed = map[string][]string{
	// The implicit fact-gathering task's action: looked up in the
	// registry to run it, never compared.
	"engine/run/facts.go": {"ansible.builtin.gather_facts"},
	// stdout_callback names, not modules.
	"cmd/cfzt-runner/run.go":     {"ansible.builtin.minimal", "ansible.builtin.oneline"},
	"cmd/cfzt-runner/compose.go": {"community.general.yaml"},
	// Collection prefixes `doc` strips to find a name as a task may
	// write it, not module names.
	"cmd/cfzt-runner/doc.go": {"ansible.builtin.", "ansible.legacy."},
	// The operator-sdk modules' own entries.
	"operator/sdk/modules.go": {"operator_sdk.util.osdk_metric", "operator_sdk.util.requeue_after"},
}

// TestNoModuleNamesOutsideModules fails when the executor, the operators
// or the command line name a module again: a module's traits are fields
// of its registry entry (module.Flags, Entry.Groups), which they ask.
func TestNoModuleNamesOutsideModules(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range []string{"engine/run", "engine/session", "operator", "operator/sdk", "cmd/cfzt-runner"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			rel := filepath.ToSlash(strings.TrimPrefix(file, root+string(os.PathSeparator)))
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, p := range namePrefixes {
					if strings.HasPrefix(s, p) && !slices.Contains(nameLiteralsAllowed[rel], s) {
						t.Errorf("%s: module name %q: declare the trait in the module's entry (engine/module Flags or Groups) and ask the entry", fset.Position(lit.Pos()), s)
					}
				}
				return true
			})
		}
	}
}
