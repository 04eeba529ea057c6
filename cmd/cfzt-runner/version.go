package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/config"
)

// compatibleCore is the ansible-core release whose behaviour cfzt-runner
// reproduces (the oracle of the golden tests).
const compatibleCore = "2.19.11"

// writeVersion prints --version as ansible-playbook prints it: a first
// line naming the program, then indented "key = value" lines. The lines
// that describe Ansible's own installation keep ansible-playbook's keys
// and hold cfzt-runner's values (the config file found, the module search
// path, the collection location, the executable). The lines about Python
// have no honest counterpart, so they are replaced, one for one and in
// the same places, by what stands in for it here:
//
//	ansible python module location -> ansible engine location (built in)
//	python version                 -> go version
//	jinja version                  -> template engine version (gonja)
//	pyyaml version                 -> yaml library version
func writeVersion(w io.Writer, cfg *config.Config) {
	file := "None"
	if cfg != nil && cfg.File != "" {
		file = cfg.File
	}
	var modulePath, collections []string
	if cfg != nil {
		modulePath, collections = cfg.ModulePath, cfg.CollectionsPaths
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	} else if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	// ansible-playbook's first line is "ansible-playbook [core X]": the
	// same shape (one word, then the bracket) keeps tools that recognise
	// it working.
	fmt.Fprintf(w, "cfzt-runner [core %s compatible, cfzt-runner %s]\n", compatibleCore, version)
	fmt.Fprintf(w, "  config file = %s\n", file)
	fmt.Fprintf(w, "  configured module search path = %s\n", pythonList(modulePath))
	fmt.Fprintf(w, "  ansible engine location = built into the executable (Go; no Python, no ansible package)\n")
	fmt.Fprintf(w, "  ansible collection location = %s\n", strings.Join(collections, ":"))
	fmt.Fprintf(w, "  executable location = %s\n", exe)
	fmt.Fprintf(w, "  go version = %s (%s/%s)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "  template engine version = %s (in place of Jinja2)\n", moduleVersion("github.com/nikolalohinski/gonja/v2"))
	fmt.Fprintf(w, "  yaml library version = %s\n", moduleVersion("gopkg.in/yaml.v3"))
}

// versionBlock is the --version block as a string, for the header of
// -vv, where ansible-playbook prints the same block.
func versionBlock(cfg *config.Config) string {
	var b strings.Builder
	writeVersion(&b, cfg)
	return b.String()
}

// moduleVersion is "path version" of a Go module built into the binary,
// from its build information ("path (unknown version)" without it).
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				if dep.Replace != nil {
					dep = dep.Replace
				}
				return path + " " + dep.Version
			}
		}
	}
	return path + " (unknown version)"
}

// pythonList formats paths as Python prints a list of strings, which is
// how ansible-playbook shows the module search path.
func pythonList(paths []string) string {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		p = strings.ReplaceAll(p, `\`, `\\`)
		switch {
		case !strings.Contains(p, "'"):
			quoted[i] = "'" + p + "'"
		case !strings.Contains(p, `"`):
			quoted[i] = `"` + p + `"`
		default:
			quoted[i] = "'" + strings.ReplaceAll(p, "'", `\'`) + "'"
		}
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
