package pyplugin

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/external"
)

//go:embed helper.py
var helperSource []byte

// MaxAnswer bounds one line the helper writes (a plugin's result): a
// plugin is untrusted code, and a larger answer is an error, not memory
// without end.
const MaxAnswer = 64 << 20

// helper is the running python3 process of a run.
type helper struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *tail
	dir    string
	nextID int
	// real is whether the helper imported ansible-core itself rather
	// than cfzt-runner's compatibility package.
	real bool
	// dead is why the process can no longer answer.
	dead error
	done chan struct{}
}

// tail keeps the last bytes the helper wrote to stderr, for the error
// when it dies.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-4096:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// startHelper starts python with the helper script and the compatibility
// package written to a new temporary directory, and sets it up.
func startHelper(python string, collectionRoots []string, exported map[string]string) (*helper, error) {
	dir, err := os.MkdirTemp("", "cfzt-pyplugin-")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "cfzt_plugin_helper.py")
	if err := os.WriteFile(script, helperSource, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	shim, err := external.WriteShim(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(python, "-u", script)
	cmd.Env = helperEnv(os.Environ(), exported)
	cmd.SysProcAttr = procAttr()
	h := &helper{cmd: cmd, dir: dir, stderr: &tail{}, done: make(chan struct{})}
	cmd.Stderr = h.stderr
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	h.stdout = bufio.NewReaderSize(out, 64<<10)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go func() { cmd.Wait(); close(h.done) }()
	setup := value.NewDict(3)
	setup.Set("op", "setup")
	setup.Set("shim", shim)
	roots := make([]any, len(collectionRoots))
	for i, r := range collectionRoots {
		roots[i] = r
	}
	setup.Set("collections", roots)
	v, err := h.call(nil, setup, nil)
	if err != nil {
		h.close()
		return nil, err
	}
	if d, ok := v.(*value.Dict); ok {
		r, _ := d.Get("real")
		h.real = r == true
	}
	return h, nil
}

// close ends the process and removes its files.
func (h *helper) close() {
	if h.dead == nil {
		h.dead = errors.New("the Python plugin helper was stopped")
	}
	h.stdin.Close()
	if h.cmd.Process != nil {
		h.cmd.Process.Kill()
	}
	<-h.done
	os.RemoveAll(h.dir)
}

// server answers the helper's requests during a call.
type server func(req *value.Dict) (*value.Dict, error)

// call sends one request and reads lines until its answer, serving the
// helper's requests (variables, files, warnings) in between with serve.
func (h *helper) call(c *template.Ctx, req *value.Dict, serve server) (any, error) {
	if h.dead != nil {
		return nil, h.dead
	}
	h.nextID++
	id := h.nextID
	req.Set("id", id)
	line, err := encoder{c}.encode(nil, req, 0)
	if err != nil {
		return nil, err
	}
	if err := h.send(line); err != nil {
		return nil, err
	}
	for {
		msg, err := h.receive()
		if err != nil {
			return nil, err
		}
		if r, ok := msg.Get("req"); ok {
			answer, err := h.serve(value.Str(r), msg, serve)
			if err != nil {
				return nil, err
			}
			if answer != nil {
				b, err := encoder{c}.encode(nil, answer, 0)
				if err != nil {
					return nil, err
				}
				if err := h.send(b); err != nil {
					return nil, err
				}
			}
			continue
		}
		if got, _ := msg.Get("id"); got != id {
			return nil, h.fail(fmt.Errorf("the Python plugin helper answered request %s instead of %d", value.Repr(got), id))
		}
		if ok, _ := msg.Get("ok"); ok == true {
			raw, _ := msg.Get("value")
			v, err := decode(raw, 0)
			if err != nil {
				return nil, h.fail(fmt.Errorf("the Python plugin helper answered with a bad value: %w", err))
			}
			return v, nil
		}
		e, _ := msg.Get("error")
		return nil, pythonError(e)
	}
}

// serve answers one request of the helper; warnings need no answer.
func (h *helper) serve(kind string, msg *value.Dict, serve server) (*value.Dict, error) {
	if serve == nil {
		return nil, h.fail(fmt.Errorf("the Python plugin helper asked for %s outside a plugin call", kind))
	}
	return serve(msg)
}

// pythonError is a plugin's exception as the engine reports it: its
// message, in a section of its own when Python raised it while handling
// another exception.
func pythonError(e any) error {
	d, _ := e.(*value.Dict)
	msg, _ := d.Get("msg")
	detached, _ := d.Get("detached")
	return &template.FilterError{Msg: value.Str(msg), Detached: detached == true}
}

func (h *helper) send(line []byte) error {
	line = append(line, '\n')
	if _, err := h.stdin.Write(line); err != nil {
		return h.fail(err)
	}
	return nil
}

// receive reads one line, at most MaxAnswer bytes, as a dict.
func (h *helper) receive() (*value.Dict, error) {
	var buf []byte
	for {
		chunk, err := h.stdout.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxAnswer {
			return nil, h.fail(fmt.Errorf("the Python plugin helper's answer is larger than %d bytes", MaxAnswer))
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return nil, h.fail(err)
		}
		break
	}
	v, err := value.DecodeJSON(buf)
	if err != nil {
		return nil, h.fail(fmt.Errorf("the Python plugin helper wrote something that is not its protocol: %v", err))
	}
	d, ok := v.(*value.Dict)
	if !ok {
		return nil, h.fail(errors.New("the Python plugin helper wrote something that is not its protocol"))
	}
	return d, nil
}

// fail marks the helper dead after err and kills it: a broken protocol
// or an exited process cannot be trusted with another call.
func (h *helper) fail(err error) error {
	if h.dead != nil {
		return h.dead
	}
	if h.cmd.Process != nil {
		h.cmd.Process.Kill()
	}
	<-h.done
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		msg = "the Python plugin helper exited"
		if st := h.cmd.ProcessState; st != nil {
			msg += " (" + st.String() + ")"
		}
	}
	if t := h.stderr.String(); t != "" {
		msg += "; its last output: " + strconv.Quote(lastLines(t, 5))
	}
	h.dead = errors.New(msg)
	return h.dead
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	end := len(s)
	for end > 0 && (s[end-1] == '\n') {
		end--
	}
	s = s[:end]
	i := len(s)
	for ; i > 0 && n > 0; i-- {
		if s[i-1] == '\n' {
			n--
			if n == 0 {
				break
			}
		}
	}
	return s[i:]
}

// helperEnv is the process environment with the run's exported variables
// over it, and PYTHONDONTWRITEBYTECODE set.
func helperEnv(environ []string, exported map[string]string) []string {
	over := make(map[string]string, len(exported)+1)
	for k, v := range exported {
		over[k] = v
	}
	over["PYTHONDONTWRITEBYTECODE"] = "1"
	return module.OverlayEnv(environ, over)
}
