package run

import "os"

// containsStr reports whether l holds s.
func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// fileExists reports whether p names a regular file (or anything but a
// directory).
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
