package urls

import (
	"os"
	"path/filepath"
	"strings"
)

// netrcLogin finds the login and password for host in $NETRC or ~/.netrc.
func netrcLogin(getenv func(string) (string, bool), host string) (string, string) {
	file, ok := getenv("NETRC")
	if !ok || file == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", ""
		}
		file = filepath.Join(home, ".netrc")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", ""
	}
	toks := strings.Fields(string(b))
	var login, pass, defLogin, defPass string
	in, inDefault, found := false, false, false
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "machine":
			if in && found {
				return login, pass
			}
			in, inDefault = i+1 < len(toks) && toks[i+1] == host, false
			if in {
				found = true
			}
			i++
		case "default":
			if in && found {
				return login, pass
			}
			in, inDefault = false, true
		case "login", "password", "account":
			if i+1 >= len(toks) {
				break
			}
			v := toks[i+1]
			switch {
			case in && toks[i] == "login":
				login = v
			case in && toks[i] == "password":
				pass = v
			case inDefault && toks[i] == "login":
				defLogin = v
			case inDefault && toks[i] == "password":
				defPass = v
			}
			i++
		}
	}
	if found {
		return login, pass
	}
	return defLogin, defPass
}
