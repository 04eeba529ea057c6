package command

import (
	"os/user"
	"regexp"
	"strings"
)

// envVarRef matches what Python's posixpath.expandvars replaces: $NAME
// (ASCII word characters) or ${ANYTHING-BUT-A-BRACE}.
var envVarRef = regexp.MustCompile(`\$(\w+|\{[^}]*\})`)

// expandVars replaces $NAME and ${NAME} with the variable's value from
// lookup, leaving references to unset variables as they are written.
func expandVars(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return envVarRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[1:]
		if strings.HasPrefix(name, "{") {
			name = name[1 : len(name)-1]
		}
		if v, ok := lookup(name); ok {
			return v
		}
		return ref
	})
}

// expandUser replaces a leading ~ or ~user with that home directory as
// Python's posixpath.expanduser does: ~ is $HOME when set, else the
// current user's home; an unknown user leaves the path unchanged.
func expandUser(s string, lookup func(string) (string, bool)) string {
	if !strings.HasPrefix(s, "~") {
		return s
	}
	end := strings.IndexByte(s, '/')
	if end < 0 {
		end = len(s)
	}
	var home string
	if end == 1 {
		if h, ok := lookup("HOME"); ok {
			home = h
		} else if u, err := user.Current(); err == nil {
			home = u.HomeDir
		} else {
			return s
		}
	} else {
		u, err := user.Lookup(s[1:end])
		if err != nil {
			return s
		}
		home = u.HomeDir
	}
	out := strings.TrimRight(home, "/") + s[end:]
	if out == "" {
		return "/"
	}
	return out
}

// expandPath is what ansible-core does to a `path` argument: expanduser of
// expandvars, with the variables the module process would see.
func expandPath(s string, lookup func(string) (string, bool)) string {
	return expandUser(expandVars(s, lookup), lookup)
}
