package command

// ShlexSplit is Python's shlex.split (POSIX mode, no comments), for
// other module packages whose modules split a command line with it
// (kubernetes.core.k8s_exec).
func ShlexSplit(s string) ([]string, error) { return shlexSplit(s) }
