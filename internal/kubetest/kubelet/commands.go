package kubelet

import (
	"archive/tar"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// run carries out an exec request in the container's root and returns
// its exit code.
func run(e *Exec) int {
	if len(e.Command) == 0 {
		fmt.Fprintln(e.Stdout, "OCI runtime exec failed: exec failed: no command given: unknown")
		return 126
	}
	c := &container{root: e.Root, e: e}
	switch e.Command[0] {
	case "test", "/usr/bin/test", "[":
		return c.test(e.Command[1:])
	case "find", "/usr/bin/find":
		return c.find(e.Command[1:])
	case "cat", "/bin/cat", "/usr/bin/cat":
		return c.cat(e.Command[1:])
	case "tar", "/bin/tar", "/usr/bin/tar":
		return c.tar(e.Command[1:])
	case "mkdir", "/bin/mkdir":
		return c.mkdir(e.Command[1:])
	case "rm", "/bin/rm":
		return c.rm(e.Command[1:])
	case "sha256sum", "/usr/bin/sha256sum":
		return c.sha256sum(e.Command[1:])
	case "sh", "/bin/sh", "bash", "/bin/bash":
		if code, ok := c.shell(e.Command[1:]); ok {
			return code
		}
	}
	return c.process()
}

type container struct {
	root string
	e    *Exec
}

// host maps a path of the container (absolute, or relative to its
// working directory /) to the host, never outside the root.
func (c *container) host(p string) string {
	return filepath.Join(c.root, filepath.FromSlash(path.Clean("/"+p)))
}

func (c *container) errf(format string, a ...any) { fmt.Fprintf(c.e.Stderr, format, a...) }

func (c *container) test(args []string) int {
	if len(args) != 2 {
		c.errf("test: unsupported expression %q\n", strings.Join(args, " "))
		return 2
	}
	fi, err := os.Stat(c.host(args[1]))
	switch args[0] {
	case "-e":
		return boolCode(err == nil)
	case "-d":
		return boolCode(err == nil && fi.IsDir())
	case "-f":
		return boolCode(err == nil && fi.Mode().IsRegular())
	}
	c.errf("test: unsupported operator %q\n", args[0])
	return 2
}

func boolCode(b bool) int {
	if b {
		return 0
	}
	return 1
}

// find supports `find [PATH] [-type f]`.
func (c *container) find(args []string) int {
	start, onlyFiles := ".", false
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		start, args = args[0], args[1:]
	}
	switch {
	case len(args) == 0:
	case len(args) == 2 && args[0] == "-type" && args[1] == "f":
		onlyFiles = true
	default:
		c.errf("find: unsupported arguments %q\n", strings.Join(args, " "))
		return 1
	}
	base := c.host(start)
	if _, err := os.Lstat(base); err != nil {
		c.errf("find: '%s': No such file or directory\n", start)
		return 1
	}
	code := 0
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			c.errf("find: '%s': %v\n", p, err)
			code = 1
			return nil
		}
		if onlyFiles && !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		out := start
		if rel != "." {
			out = strings.TrimSuffix(start, "/") + "/" + filepath.ToSlash(rel)
		}
		fmt.Fprintln(c.e.Stdout, out)
		return nil
	})
	return code
}

func (c *container) cat(args []string) int {
	code := 0
	for _, a := range args {
		f, err := os.Open(c.host(a))
		if err != nil {
			c.errf("cat: %s: No such file or directory\n", a)
			code = 1
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			c.errf("cat: %s: Is a directory\n", a)
			code = 1
		} else if _, err := io.Copy(c.e.Stdout, f); err != nil {
			code = 1
		}
		f.Close()
	}
	return code
}

// tar supports creation on stdout (tarCreate) and extraction from stdin: `tar [--no-same-permissions]
// [--no-same-owner] -xmf - [-C DIR]` (the m: modification times are not
// restored). Without --no-same-permissions the archive's modes are kept,
// as GNU tar does for root; with it, the umask 022 applies. Ownership is
// not changed.
func (c *container) tar(args []string) int {
	if len(args) >= 2 && (args[0] == "cf" || args[0] == "-cf") && args[1] == "-" {
		return c.tarCreate(args[2:])
	}
	samePerms, dir := true, "/"
	extract := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--no-same-permissions":
			samePerms = false
		case a == "--no-same-owner":
		case a == "-C" && i+1 < len(args):
			i++
			dir = args[i]
		case a == "-xmf" || a == "-xf" || a == "xmf":
			extract = true
			if i+1 >= len(args) || args[i+1] != "-" {
				c.errf("tar: only an archive on stdin is supported\n")
				return 2
			}
			i++
		default:
			c.errf("tar: unsupported option %q\n", a)
			return 2
		}
	}
	if !extract || c.e.Stdin == nil {
		c.errf("tar: only extraction from stdin is supported\n")
		return 2
	}
	defer func() { _, _ = io.Copy(io.Discard, c.e.Stdin) }()
	tr := tar.NewReader(c.e.Stdin)
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			if n == 0 {
				c.errf("tar: This does not look like a tar archive\n")
				return 2
			}
			return 0
		}
		if err != nil {
			c.errf("tar: %v\n", err)
			return 2
		}
		n++
		dest := c.host(path.Join(dir, h.Name))
		mode := os.FileMode(h.Mode).Perm()
		if !samePerms {
			mode &^= 0o022
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dest, 0o755); err != nil {
				c.errf("tar: %s: %v\n", h.Name, err)
				return 2
			}
			_ = os.Chmod(dest, mode)
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				c.errf("tar: %s: %v\n", h.Name, err)
				return 2
			}
			f, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				c.errf("tar: %s: Cannot open: %v\n", h.Name, err)
				return 2
			}
			_, err = io.Copy(f, tr)
			f.Close()
			if err != nil {
				c.errf("tar: %s: %v\n", h.Name, err)
				return 2
			}
			_ = os.Chmod(dest, mode)
		default:
			c.errf("tar: %s: unsupported entry type %q\n", h.Name, h.Typeflag)
		}
	}
}

// mkdir is `mkdir [-p] DIR...`, with busybox's messages.
func (c *container) mkdir(args []string) int {
	parents, code := false, 0
	for _, a := range args {
		if a == "-p" {
			parents = true
			continue
		}
		var err error
		if parents {
			err = os.MkdirAll(c.host(a), 0o755)
		} else {
			err = os.Mkdir(c.host(a), 0o755)
		}
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrExist):
			c.errf("mkdir: can't create directory '%s': File exists\n", a)
			code = 1
		default:
			c.errf("mkdir: can't create directory '%s': No such file or directory\n", a)
			code = 1
		}
	}
	return code
}

// rm is `rm [-r] [-f] PATH...` (also -rf, -fr), with GNU's messages; a
// path is never the container's root.
func (c *container) rm(args []string) int {
	recursive, force, code := false, false, 0
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			for _, f := range a[1:] {
				switch f {
				case 'r', 'R':
					recursive = true
				case 'f':
					force = true
				default:
					c.errf("rm: invalid option -- '%c'\n", f)
					return 1
				}
			}
			continue
		}
		paths = append(paths, a)
	}
	for _, a := range paths {
		hp := c.host(a)
		fi, err := os.Lstat(hp)
		if err != nil {
			if !force {
				c.errf("rm: cannot remove '%s': No such file or directory\n", a)
				code = 1
			}
			continue
		}
		if hp == filepath.Clean(c.root) {
			c.errf("rm: it is dangerous to operate recursively on '/'\n")
			code = 1
			continue
		}
		if fi.IsDir() && !recursive {
			c.errf("rm: cannot remove '%s': Is a directory\n", a)
			code = 1
			continue
		}
		if err := os.RemoveAll(hp); err != nil {
			c.errf("rm: cannot remove '%s': %v\n", a, err)
			code = 1
		}
	}
	return code
}

// sha256sum is `sha256sum [-b] FILE...`: "HASH  FILE", or "HASH *FILE"
// in binary mode.
func (c *container) sha256sum(args []string) int {
	mark, code := " ", 0
	for _, a := range args {
		if a == "-b" {
			mark = "*"
			continue
		}
		f, err := os.Open(c.host(a))
		if err != nil {
			c.errf("sha256sum: %s: No such file or directory\n", a)
			code = 1
			continue
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			c.errf("sha256sum: %s: Is a directory\n", a)
			code = 1
			continue
		}
		fmt.Fprintf(c.e.Stdout, "%x %s%s\n", h.Sum(nil), mark, a)
	}
	return code
}

// tarCreate is `tar cf - PATH...`, what kubectl cp runs to copy out of a
// pod: an archive of each path (a directory with what is under it, in
// name order) on stdout, member names without their leading slashes (GNU
// tar says so on stderr), then exit 0; 2 when a path cannot be read,
// after the others, as GNU tar ends.
func (c *container) tarCreate(paths []string) int {
	if len(paths) == 0 {
		c.errf("tar: Cowardly refusing to create an empty archive\n")
		return 2
	}
	tw := tar.NewWriter(c.e.Stdout)
	code, warned := 0, false
	for _, p := range paths {
		if strings.HasPrefix(p, "/") && !warned {
			c.errf("tar: Removing leading `/' from member names\n")
			warned = true
		}
		root := c.host(p)
		err := filepath.WalkDir(root, func(hp string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, hp)
			// Relative to the working directory, /; never above it.
			name := strings.TrimLeft(path.Join(path.Clean("/"+p), filepath.ToSlash(rel)), "/")
			fi, err := d.Info()
			if err != nil {
				return err
			}
			link := ""
			if fi.Mode()&fs.ModeSymlink != 0 {
				if link, err = os.Readlink(hp); err != nil {
					return err
				}
			}
			h, err := tar.FileInfoHeader(fi, link)
			if err != nil {
				return err
			}
			h.Name = name
			if fi.IsDir() {
				h.Name += "/"
			}
			h.Uname, h.Gname = "", ""
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			if fi.Mode().IsRegular() {
				f, err := os.Open(hp)
				if err != nil {
					return err
				}
				_, err = io.Copy(tw, f)
				f.Close()
				return err
			}
			return nil
		})
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				c.errf("tar: %s: Cannot stat: No such file or directory\n", p)
			} else {
				c.errf("tar: %s: %v\n", p, err)
			}
			code = 2
		}
	}
	if err := tw.Close(); err != nil {
		return 2
	}
	if code != 0 {
		c.errf("tar: Exiting with failure status due to previous errors\n")
	}
	return code
}

// shell handles `sh` without a script (it reads stdin, which is empty
// without a stdin stream, and exits 0) and `sh -c 'echo WORDS'` with
// glob words, the listing kubernetes.core falls back on without find.
// Other scripts are not handled (ok false): they run as a process.
func (c *container) shell(args []string) (int, bool) {
	if len(args) == 0 {
		if c.e.Stdin != nil {
			_, _ = io.Copy(io.Discard, c.e.Stdin)
		}
		return 0, true
	}
	if len(args) != 2 || args[0] != "-c" || !strings.HasPrefix(args[1], "echo ") || strings.ContainsAny(args[1], ";&|<>$`()'\"\n") {
		return 0, false
	}
	var out []string
	for _, w := range shellWords(strings.TrimPrefix(args[1], "echo ")) {
		if !strings.ContainsAny(w, "*?[") {
			out = append(out, w)
			continue
		}
		matches := c.glob(w)
		if len(matches) == 0 {
			out = append(out, w)
		}
		out = append(out, matches...)
	}
	fmt.Fprintln(c.e.Stdout, strings.Join(out, " "))
	return 0, true
}

// shellWords splits on unescaped spaces and removes backslash escapes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\':
			esc = true
		case r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

// glob expands a pattern whose last element has the wildcard, as sh
// does: `*` skips dot files, `.*` matches them and . and ..
func (c *container) glob(pattern string) []string {
	dir, pat := path.Split(pattern)
	entries, err := os.ReadDir(c.host(dir))
	if err != nil {
		return nil
	}
	names := []string{}
	if strings.HasPrefix(pat, ".") {
		names = append(names, ".", "..")
	}
	for _, en := range entries {
		names = append(names, en.Name())
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, ".") && !strings.HasPrefix(pat, ".") {
			continue
		}
		if ok, _ := path.Match(pat, n); ok {
			out = append(out, dir+n)
		}
	}
	sort.Strings(out)
	return out
}

// process runs the command for real with the container's root as its
// working directory.
func (c *container) process() int {
	cmd := exec.Command(c.e.Command[0], c.e.Command[1:]...)
	cmd.Dir = c.root
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root"}
	if c.e.Stdin != nil {
		cmd.Stdin = c.e.Stdin
	}
	cmd.Stdout, cmd.Stderr = c.e.Stdout, c.e.Stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		if code := exitErr.ExitCode(); code >= 0 {
			return code
		}
		return 137 // killed by a signal
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(c.e.Stdout, "OCI runtime exec failed: exec failed: unable to start container process: exec: %q: executable file not found in $PATH: unknown\r\n", c.e.Command[0])
		return 126
	default:
		fmt.Fprintf(c.e.Stdout, "OCI runtime exec failed: exec failed: unable to start container process: %v: unknown\r\n", err)
		return 126
	}
}
