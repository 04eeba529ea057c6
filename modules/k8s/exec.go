package k8s

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/command"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	streamhttp "k8s.io/streaming/pkg/httpstream"
)

// maxStreamBytes bounds what one exec stream (stdout or stderr) or one
// log may bring back into the controller's memory: a pod (or whatever
// answers for its kubelet) could otherwise send without end.
// kubernetes.core has no bound; past it cfzt-runner ends the command and
// fails the task. A variable so that tests can lower it.
var maxStreamBytes = 64 << 20

// errTooLarge is the failure of a stream past maxStreamBytes.
type errTooLarge struct{ what string }

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("the %s is larger than %d bytes, cfzt-runner's limit", e.what, maxStreamBytes)
}

// boundedBuffer keeps up to maxStreamBytes and calls over once past it.
type boundedBuffer struct {
	b     strings.Builder
	what  string
	over  func()
	extra bool
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if w.extra {
		return len(p), nil // drained, not kept
	}
	if w.b.Len()+len(p) > maxStreamBytes {
		w.extra = true
		w.over()
		return len(p), nil
	}
	w.b.Write(p)
	return len(p), nil
}

func (w *boundedBuffer) err() error {
	if w.extra {
		return &errTooLarge{w.what}
	}
	return nil
}

// execOpts is one exec of a command in a container.
type execOpts struct {
	namespace, pod, container string
	command                   []string
	stdin                     io.Reader
	stdout, stderr            io.Writer
}

// podExec runs a command in a pod through the apiserver's pods/exec over
// a websocket, as kubernetes.core's Python client does (wsexec.go). It
// returns the command's exit code; an error is a failure to run it or a
// broken stream.
func podExec(ctx context.Context, c *Clients, o execOpts) (int, error) {
	q := url.Values{}
	for _, a := range o.command {
		q.Add("command", a)
	}
	if o.container != "" {
		q.Set("container", o.container)
	}
	q.Set("stdout", "true")
	q.Set("stderr", "true")
	if o.stdin != nil {
		q.Set("stdin", "true")
	}
	// The connection's base URL (a host may carry a path prefix), then
	// the names escaped whole, as the Python client quotes path
	// parameters: a "/" in a name cannot reach another path.
	base := c.raw.Get().AbsPath("/").URL()
	u, err := url.Parse(base.Scheme + "://" + base.Host + strings.TrimSuffix(base.EscapedPath(), "/") +
		"/api/v1/namespaces/" + url.PathEscape(o.namespace) + "/pods/" + url.PathEscape(o.pod) + "/exec")
	if err != nil {
		return 0, err
	}
	u.RawQuery = q.Encode()
	return wsExec(ctx, c, u, o)
}

// execSpec is kubernetes.core.k8s_exec's argument_spec.
var execSpec = &argspec.Spec{Options: concat(authOptions(), []opt{
	{Name: "namespace", Type: argspec.Str, Required: true},
	{Name: "pod", Type: argspec.Str, Required: true},
	{Name: "container", Type: argspec.Str},
	{Name: "command", Type: argspec.Str, Required: true},
})}

// runExec is kubernetes.core.k8s_exec: the command, split as shlex.split
// does, runs in the pod's container (the first of the pod's spec when
// none is named) without stdin or a tty. It always reports changed, in
// check mode too (the command runs: kubernetes.core does not skip it);
// an exit code other than 0 fails the task through rc, as ansible-core
// fails any result with rc != 0.
func runExec(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_exec", execSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	args, err := command.ShlexSplit(p.str("command"))
	if err != nil {
		// shlex.split's ValueError escapes kubernetes.core's module.
		return module.Crashed(errors.New("ValueError: " + err.Error())), nil
	}
	ns, pod := p.str("namespace"), p.str("pod")
	container := p.str("container")
	if container == "" {
		// The first container of the pod, when it can be read; a failure
		// to read it is ignored, as kubernetes.core ignores it.
		if got, err := c.do(ctx, request{verb: "GET", path: "/api/v1/namespaces/" + url.PathEscape(ns) + "/pods/" + url.PathEscape(pod)}); err == nil {
			if l, ok := field(got.obj, "spec", "containers").([]any); ok && len(l) > 0 {
				container = value.Str(field(l[0], "name"))
			}
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stdout := &boundedBuffer{what: "command's stdout", over: cancel}
	stderr := &boundedBuffer{what: "command's stderr", over: cancel}
	rc, err := podExec(sctx, c, execOpts{namespace: ns, pod: pod, container: container, command: args, stdout: stdout, stderr: stderr})
	for _, b := range []*boundedBuffer{stdout, stderr} {
		if e := b.err(); e != nil {
			err = e
		}
	}
	if err != nil {
		return module.FailedResult(failf("Failed to execute on pod %s due to : %s", pod, execError(err))), nil
	}
	out, errOut := stdout.b.String(), stderr.b.String()
	return value.DictOf(
		"changed", true,
		"stdout", out,
		"stderr", errOut,
		"rc", rc,
		"return_code", rc,
		"stdout_lines", pyLines(out),
		"stderr_lines", pyLines(errOut),
	), nil
}

// execError is the text of a failure to exec. A handshake the apiserver
// refused is what the Python client's websocket raises for it (an
// ApiException of status 0 with the HTTP status as its reason).
func execError(err error) string {
	if se := handshakeStatus(err); se != nil {
		code := int(se.ErrStatus.Code)
		return fmt.Sprintf("(0)\nReason: Handshake status %d %s\n", code, http.StatusText(code))
	}
	return err.Error()
}

// pyLines is str.splitlines() as a list value, as ansible-core adds
// stdout_lines and stderr_lines to a module's result.
func pyLines(s string) []any {
	out := []any{}
	for _, l := range py.Splitlines(s, false) {
		out = append(out, l)
	}
	return out
}

// handshakeStatus is the Status with which the apiserver refused a
// websocket handshake, nil for another error.
func handshakeStatus(err error) *apierrors.StatusError {
	// client-go's websocket dialer fails with k8s.io/streaming's type.
	var ue *streamhttp.UpgradeFailureError
	if !errors.As(err, &ue) {
		return nil
	}
	var se *apierrors.StatusError
	if errors.As(ue.Cause, &se) && se.ErrStatus.Code != 0 {
		return se
	}
	return nil
}
