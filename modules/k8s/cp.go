package k8s

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// maxCopyBytes bounds what one from_pod copy writes on the controller:
// a pod could otherwise send without end and fill the disk.
// kubernetes.core has no bound. A variable so that tests can lower it.
var maxCopyBytes int64 = 16 << 30

// cpSpec is kubernetes.core.k8s_cp's argument_spec and rules.
var cpSpec = &argspec.Spec{
	Options: concat(authOptions(), []opt{
		{Name: "namespace", Type: argspec.Str, Required: true},
		{Name: "pod", Type: argspec.Str, Required: true},
		{Name: "container"},
		{Name: "remote_path", Type: argspec.Path, Required: true},
		{Name: "local_path", Type: argspec.Path},
		{Name: "content", Type: argspec.Str},
		{Name: "state", Type: argspec.Str, Default: "to_pod", Choices: []any{"to_pod", "from_pod"}},
		{Name: "no_preserve", Type: argspec.Bool, Default: false},
	}),
	Rules: argspec.Rules{
		MutuallyExclusive: [][]string{{"local_path", "content"}},
		RequiredIf:        []argspec.RequiredIf{{Key: "state", Value: "from_pod", Requires: []string{"local_path"}}},
		RequiredOneOf:     [][]string{{"local_path", "content"}},
	},
}

// runCp is kubernetes.core.k8s_cp: a file or directory copied into a
// pod by `tar -xmf -` fed a tar stream, or out of it by listing files
// (find, else the shell's echo) and `cat`-ing each. It reports changed
// whenever it copies, and in check mode runs only the pod's tests.
func runCp(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_cp", cpSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	cp := &podCopy{ctx: ctx, c: c, p: p, check: req.Check,
		namespace: p.str("namespace"), pod: p.str("pod"), container: p.str("container"),
		remote: p.str("remote_path"), local: p.str("local_path")}
	containers, f := cp.checkPod()
	if f != nil {
		return module.FailedResult(f), nil
	}
	if len(containers) > 1 && p["container"] == nil {
		return module.FailedResult(failf("Pod contains more than 1 container, option 'container' should be set")), nil
	}
	var res *value.Dict
	var err error
	if p.str("state") == "to_pod" {
		res, err = cp.toPod()
	} else {
		res, err = cp.fromPod()
	}
	if err != nil {
		var f *module.Failure
		if errors.As(err, &f) {
			return module.FailedResult(f), nil
		}
		return module.FailedResult(failf("Failed to copy object due to: %s", execError(err))), nil
	}
	return res, nil
}

type podCopy struct {
	ctx                       context.Context
	c                         *Clients
	p                         params
	check                     bool
	namespace, pod, container string
	remote, local             string
}

// checkPod is kubernetes.core's check_pod: the pod's containers (from
// its containerStatuses), and the named container among them.
func (cp *podCopy) checkPod() ([]string, *module.Failure) {
	res, err := cp.c.findResource("Pod", "v1")
	if err != nil || res == nil {
		return nil, noMatch("v1", "Pod", err)
	}
	got, err := cp.c.do(cp.ctx, request{verb: "GET", path: res.path(cp.pod, cp.namespace)})
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && len(ae.body) > 0 {
			return nil, module.FailDict(value.DictOf("status", ae.code, "reason", ae.Reason()),
				fmt.Sprintf("Namespace=%s Kind=Pod Name=%s: Failed requested object: %s", cp.namespace, cp.pod, py.BytesRepr(ae.body)))
		}
		return nil, failf("%s", err)
	}
	statuses, ok := field(got.obj, "status", "containerStatuses").([]any)
	if !ok {
		return nil, failf("'NoneType' object is not iterable")
	}
	var names []string
	for _, s := range statuses {
		names = append(names, value.Str(field(s, "name")))
	}
	if cp.container != "" && !contains(names, cp.container) {
		return nil, failf("Pod has no container %s", cp.container)
	}
	return names, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// remote is one command's outcome in the pod.
type remote struct {
	ok             bool // the error channel's status is Success
	rc             int
	stdout, stderr string
}

// run runs a command in the pod without stdin, as _run_from_pod does;
// a failure to run it at all is kubernetes.core's message (whose
// format arguments are out of order: the pod name where the namespace
// goes, the command where the pod name goes).
func (cp *podCopy) run(cmd ...string) (remote, error) {
	sctx, cancel := context.WithCancel(cp.ctx)
	defer cancel()
	stdout := &boundedBuffer{what: "command's stdout", over: cancel}
	stderr := &boundedBuffer{what: "command's stderr", over: cancel}
	rc, err := podExec(sctx, cp.c, execOpts{namespace: cp.namespace, pod: cp.pod, container: cp.container, command: cmd, stdout: stdout, stderr: stderr})
	for _, b := range []*boundedBuffer{stdout, stderr} {
		if e := b.err(); e != nil {
			err = e
		}
	}
	if err != nil {
		l := make([]any, len(cmd))
		for i, a := range cmd {
			l[i] = a
		}
		return remote{}, failf("Error while running/parsing from pod %s/%s command='%s' : %s", cp.pod, value.Repr(l), cp.namespace, execError(err))
	}
	return remote{ok: rc == 0, rc: rc, stdout: stdout.b.String(), stderr: stderr.b.String()}, nil
}

// isDir is is_directory_path_from_pod: whether the path exists (an
// error message when it must), then whether it is a directory.
func (cp *podCopy) isDir(path string, mustExist bool) (bool, error) {
	r, err := cp.run("test", "-e", path)
	if err != nil {
		return false, err
	}
	if !r.ok {
		if mustExist {
			return false, failf("%s does not exist in remote pod filesystem", path)
		}
		return false, nil
	}
	r, err = cp.run("test", "-d", path)
	if err != nil {
		return false, err
	}
	return r.ok, nil
}

// outLines is how _run_from_pod collects stdout: without trailing
// newlines, split on newlines; nothing when there was no output.
func outLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// exitMessage stands for the message of the error channel's Status of a
// command that failed; client-go keeps only the exit code of it.
func exitMessage(r remote) string {
	return fmt.Sprintf("command terminated with exit code %d", r.rc)
}

func (cp *podCopy) fromPod() (*value.Dict, error) {
	files, found, err := cp.listRemoteFiles()
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New("object of type 'NoneType' has no len()")
	}
	if len(files) == 0 {
		return value.DictOf("changed", false, "warning", fmt.Sprintf("No file found from directory '%s' into remote Pod.", cp.remote)), nil
	}
	isDir := len(files) > 1 || files[0] != cp.remote
	start := cp.remote
	if fi, err := os.Stat(cp.local); isDir && err == nil && fi.IsDir() {
		start = py.Dirname(cp.remote)
	}
	if !cp.check {
		// Every destination is decided before anything is written: a
		// listed file outside remote_path (a hostile pod's find or echo
		// may print "../" paths) would land outside local_path, which
		// cfzt-runner refuses where kubernetes.core writes it.
		dests := make([]string, len(files))
		for i, f := range files {
			dests[i] = cp.local
			if !isDir {
				continue
			}
			if under, err := py.Relpath(f, cp.remote); err != nil || escapes(under) {
				return nil, fmt.Errorf("the pod listed %s, which is outside %s: nothing was copied", f, cp.remote)
			}
			rel, err := py.Relpath(f, start)
			if err != nil {
				return nil, err
			}
			if escapes(rel) {
				return nil, fmt.Errorf("the pod listed %s, which is outside %s: nothing was copied", f, cp.remote)
			}
			dests[i] = py.Join([]string{cp.local, rel})
		}
		budget := maxCopyBytes
		for i, f := range files {
			if isDir {
				if err := os.MkdirAll(py.Dirname(dests[i]), 0o777); err != nil {
					return nil, pyOSError(err)
				}
			}
			n, err := cp.cat(f, dests[i], budget)
			if err != nil {
				return nil, err
			}
			budget -= n
		}
	}
	return value.DictOf("changed", true, "result", fmt.Sprintf("%s successfully copied locally into %s", cp.remote, cp.local)), nil
}

// escapes reports whether a relative path leaves its start.
func escapes(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/")
}

// cat copies one remote file into dest, at most budget bytes.
func (cp *podCopy) cat(remoteFile, dest string, budget int64) (int64, error) {
	fh, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o666)
	if err != nil {
		return 0, pyOSError(err)
	}
	defer fh.Close()
	sctx, cancel := context.WithCancel(cp.ctx)
	defer cancel()
	w := &budgetWriter{w: fh, left: budget, over: cancel}
	stderr := &boundedBuffer{what: "command's stderr", over: cancel}
	_, err = podExec(sctx, cp.c, execOpts{namespace: cp.namespace, pod: cp.pod, container: cp.container, command: []string{"cat", remoteFile}, stdout: w, stderr: stderr})
	if w.overflow {
		return 0, fmt.Errorf("%s is larger than %d bytes, cfzt-runner's limit for one copy", remoteFile, maxCopyBytes)
	}
	if e := stderr.err(); e != nil {
		err = e
	}
	if err != nil {
		return 0, err
	}
	if w.err != nil {
		return 0, pyOSError(w.err)
	}
	if s := stderr.b.String(); s != "" {
		return 0, failf("Failed to copy file from Pod: %s", s)
	}
	return w.n, nil
}

// budgetWriter writes at most left bytes, then drains and calls over.
type budgetWriter struct {
	w        io.Writer
	left, n  int64
	over     func()
	overflow bool
	err      error
}

func (b *budgetWriter) Write(p []byte) (int, error) {
	if b.overflow || b.err != nil {
		return len(p), nil
	}
	if int64(len(p)) > b.left {
		b.overflow = true
		b.over()
		return len(p), nil
	}
	if _, err := b.w.Write(p); err != nil {
		b.err = err
		b.over()
		return len(p), nil
	}
	b.left -= int64(len(p))
	b.n += int64(len(p))
	return len(p), nil
}

// listRemoteFiles is list_remote_files: the remote path itself, or the
// files under it by find, else by the shell's echo; found false when
// neither can run.
func (cp *podCopy) listRemoteFiles() ([]string, bool, error) {
	dir, err := cp.isDir(cp.remote, true)
	if err != nil {
		return nil, false, err
	}
	if !dir {
		return []string{cp.remote}, true, nil
	}
	r, err := cp.run("find")
	if err != nil {
		return nil, false, err
	}
	if r.ok {
		r, err := cp.run("find", cp.remote, "-type", "f")
		if err != nil {
			return nil, false, err
		}
		if !r.ok {
			return nil, false, failf("%s", exitMessage(r))
		}
		return outLines(r.stdout), true, nil
	}
	if r, err = cp.run("echo"); err != nil {
		return nil, false, err
	}
	if r.ok {
		files, err := cp.listWithEcho(cp.remote)
		return files, true, err
	}
	return nil, false, nil
}

// shell is the pod's shell, /bin/sh or else /bin/bash ("" for none).
func (cp *podCopy) shell() (string, error) {
	for _, s := range []string{"/bin/sh", "/bin/bash"} {
		r, err := cp.run(s)
		if err != nil {
			return "", err
		}
		if r.ok {
			return s, nil
		}
	}
	return "", nil
}

// listWithEcho is listfile_with_echo: `echo DIR/* DIR/.*` by the shell,
// split on "DIR/", recursing into directories.
func (cp *podCopy) listWithEcho(path string) ([]string, error) {
	sh, err := cp.shell()
	if err != nil {
		return nil, err
	}
	if sh == "" {
		return nil, failf("Error while running/parsing from pod %s/[None, '-c', 'echo ...'] command='%s' : no shell in the pod", cp.pod, cp.namespace)
	}
	esc := strings.ReplaceAll(path, " ", `\ `)
	r, err := cp.run(sh, "-c", fmt.Sprintf("echo %s/* %s/.*", esc, esc))
	if err != nil {
		return nil, err
	}
	if !r.ok {
		return nil, failf("%s", exitMessage(r))
	}
	var files []string
	if out := outLines(r.stdout); len(out) > 0 {
		for _, part := range strings.Split(out[0]+" ", path+"/") {
			if part == "" {
				continue
			}
			name := part[:len(part)-1]
			if name == "." || name == ".." {
				continue
			}
			files = append(files, py.Join([]string{path, name}))
		}
	}
	var result []string
	for _, f := range files {
		dir, err := cp.isDir(f, true)
		if err != nil {
			var fl *module.Failure
			if errors.As(err, &fl) {
				continue // it does not exist (an unmatched glob)
			}
			return nil, err
		}
		if !dir {
			result = append(result, f)
			continue
		}
		sub, err := cp.listWithEcho(f)
		if err != nil {
			return nil, err
		}
		result = append(result, sub...)
	}
	return result, nil
}

func (cp *podCopy) toPod() (*value.Dict, error) {
	dest := strings.TrimRight(cp.remote, "/")
	src := cp.local
	content, hasContent := cp.p["content"].(string)
	hasContent = hasContent && content != ""
	if hasContent {
		tmp, err := os.CreateTemp("", "tmp")
		if err != nil {
			return nil, pyOSError(err)
		}
		defer os.Remove(tmp.Name())
		_, err = tmp.WriteString(content)
		tmp.Close()
		if err != nil {
			return nil, pyOSError(err)
		}
		src = tmp.Name()
	} else {
		if _, err := os.Lstat(src); err != nil {
			if _, err := os.Stat(src); err != nil {
				return nil, failf("%s does not exist in local filesystem", cp.local)
			}
		}
		if syscall.Access(src, 4 /* R_OK */) != nil {
			return nil, failf("%s not readable", cp.local)
		}
	}
	dir, err := cp.isDir(cp.remote, false)
	if err != nil {
		return nil, err
	}
	if dir {
		if hasContent {
			return nil, failf("When content is specified, remote path should not be an existing directory")
		}
		dest = py.Join([]string{dest, py.Basename(src)})
	}
	if !cp.check {
		cmd := []string{"tar", "-xmf", "-"}
		if cp.p.bool("no_preserve") {
			cmd = []string{"tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-"}
		}
		if strings.HasPrefix(dest, "/") {
			cmd = append(cmd, "-C", "/")
		}
		var archive bytes.Buffer
		if err := writeTar(&archive, src, dest); err != nil {
			return nil, err
		}
		stdout := &boundedBuffer{what: "command's stdout", over: func() {}}
		stderr := &boundedBuffer{what: "command's stderr", over: func() {}}
		rc, err := podExec(cp.ctx, cp.c, execOpts{namespace: cp.namespace, pod: cp.pod, container: cp.container, command: cmd, stdin: &archive, stdout: stdout, stderr: stderr})
		if err != nil {
			return nil, err
		}
		errText := strings.TrimRight(stderr.b.String(), "\n")
		if errText == "" && rc != 0 {
			errText = fmt.Sprintf("command terminated with exit code %d", rc)
		}
		if errText != "" {
			l := make([]any, len(cmd))
			for i, a := range cmd {
				l[i] = a
			}
			return nil, module.FailDict(value.DictOf("command", l), "Failed to copy local file/directory into Pod due to: "+errText)
		}
	}
	if hasContent {
		return value.DictOf("changed", true, "result", fmt.Sprintf("Content successfully copied into %s on remote Pod", cp.remote)), nil
	}
	return value.DictOf("changed", true, "result", fmt.Sprintf("%s successfully copied into remote Pod into %s", cp.local, cp.remote)), nil
}

// writeTar is tarfile.add(src, arcname): src (a directory with what is
// under it, in sorted order) under the name arcname without its leading
// slashes, with the files' modes, owners and times.
func writeTar(w io.Writer, src, arcname string) error {
	tw := tar.NewWriter(w)
	if err := addTar(tw, src, strings.TrimLeft(arcname, "/")); err != nil {
		return err
	}
	return tw.Close()
}

func addTar(tw *tar.Writer, src, name string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return pyOSError(err)
	}
	link := ""
	if fi.Mode()&os.ModeSymlink != 0 {
		if link, err = os.Readlink(src); err != nil {
			return pyOSError(err)
		}
	}
	h, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	h.Name = name
	if fi.IsDir() && name != "" && !strings.HasSuffix(name, "/") {
		h.Name = name + "/"
	}
	h.Format = tar.FormatPAX
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	switch {
	case fi.Mode().IsRegular():
		f, err := os.Open(src)
		if err != nil {
			return pyOSError(err)
		}
		_, err = io.Copy(tw, f)
		f.Close()
		return err
	case fi.IsDir():
		entries, err := os.ReadDir(src)
		if err != nil {
			return pyOSError(err)
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			if err := addTar(tw, filepath.Join(src, n), py.Join([]string{name, n})); err != nil {
				return err
			}
		}
	}
	return nil
}

// pyOSError is the text of Python's OSError for a failed file operation.
func pyOSError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		var errno syscall.Errno
		if errors.As(pe.Err, &errno) {
			return fmt.Errorf("[Errno %d] %s: '%s'", int(errno), pyStrerror(errno), pe.Path)
		}
	}
	return err
}

func pyStrerror(e syscall.Errno) string {
	s := e.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
