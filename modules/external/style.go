// Package external runs module files found on ansible-core's module search
// path (a playbook's or role's library/ directory, ANSIBLE_LIBRARY) as
// ansible-core runs them on the local connection: the module's style
// decides how its arguments reach it, its interpreter line how it is
// started, and its JSON output becomes the task result.
package external

import (
	"bytes"
	"regexp"
	"strings"
)

// Style is how a module file takes its arguments, as ansible-core's
// module_common classifies it.
type Style int

const (
	// StyleOld gets a file of key=value words as its first argument.
	StyleOld Style = iota
	// StyleWantJSON (a WANT_JSON marker) gets a JSON file as its first
	// argument.
	StyleWantJSON
	// StyleBinary (not text) is executed directly with a JSON file as its
	// first argument.
	StyleBinary
	// StyleNewPython imports ansible.module_utils: it reads
	// {"ANSIBLE_MODULE_ARGS": ...} on its standard input.
	StyleNewPython
	// StyleJSONArgs has <<INCLUDE_ANSIBLE_MODULE_JSON_ARGS>> replaced by
	// its arguments as JSON.
	StyleJSONArgs
	// StylePowerShell cannot run on a POSIX host.
	StylePowerShell
)

// Markers ansible-core looks for in a module's source.
var (
	replacerCommon   = []byte("#<<INCLUDE_ANSIBLE_MODULE_COMMON>>")
	replacerJSONArgs = []byte("<<INCLUDE_ANSIBLE_MODULE_JSON_ARGS>>")
	replacerWindows  = []byte("# POWERSHELL_COMMON")
	wantJSON         = []byte("WANT_JSON")
	// newStylePython matches the imports of module_utils that make a
	// Python module "new style".
	newStylePython = regexp.MustCompile(`(?:from +\.{2,} *module_utils.* +import |` +
		`from +ansible_collections\.[^.]+\.[^.]+\.plugins\.module_utils.* +import |` +
		`import +ansible_collections\.[^.]+\.[^.]+\.plugins\.module_utils.*|` +
		`from +ansible\.module_utils.* +import |` +
		`import +ansible\.module_utils\.)`)
	powerShellRequires = regexp.MustCompile(`(?i)#Requires -Module|#Requires -Version|#AnsibleRequires -(OSVersion|PowerShell|CSharpUtil|Wrapper)`)
)

// Classify returns a module source's style, in ansible-core's order of
// checks.
func Classify(src []byte) Style {
	switch {
	case isBinary(src):
		return StyleBinary
	case bytes.Contains(src, replacerCommon), newStylePython.Match(src):
		return StyleNewPython
	case bytes.Contains(src, replacerWindows), powerShellRequires.Match(src):
		return StylePowerShell
	case bytes.Contains(src, replacerJSONArgs):
		return StyleJSONArgs
	case bytes.Contains(src, wantJSON):
		return StyleWantJSON
	}
	return StyleOld
}

// isBinary sniffs the first KiB as ansible-core does: any byte outside
// printable text (besides BEL, BS, TAB, LF, FF, CR and ESC, and counting
// 0x80-0xff as text) makes the file binary.
func isBinary(src []byte) bool {
	if len(src) > 1024 {
		src = src[:1024]
	}
	for _, b := range src {
		switch {
		case b == 7 || b == 8 || b == 9 || b == 10 || b == 12 || b == 13 || b == 27:
		case b >= 0x20 && b != 0x7f:
		default:
			return true
		}
	}
	return false
}

// shebang splits a module's interpreter line into the interpreter and
// its arguments; ok is false when the first line is not one.
func shebang(src []byte) (interp string, args []string, ok bool) {
	first, _, _ := bytes.Cut(src, []byte("\n"))
	if !bytes.HasPrefix(first, []byte("#!")) {
		return "", nil, false
	}
	fields := strings.Fields(strings.TrimSpace(string(first[2:])))
	if len(fields) == 0 {
		return "", nil, false
	}
	return fields[0], fields[1:], true
}
