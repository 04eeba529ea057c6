package demo

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tierColours give each tier's log prefix its own colour.
var tierColours = map[string]string{
	"manager":           sgrMagenta,
	"kube_worker":       sgrBlue,
	"cloudflare_worker": sgrYellow,
}

// logSink receives every tier's output line by line: it echoes the lines
// (prefixed with the tier's name) to out when out is not nil, and keeps them
// all for the failure report and for tests.
type logSink struct {
	mu    sync.Mutex
	out   io.Writer
	st    style
	lines map[string][]string
}

func newLogSink(out io.Writer, st style) *logSink {
	return &logSink{out: out, st: st, lines: map[string][]string{}}
}

// writer returns an io.Writer for one tier's stdout and stderr.
func (s *logSink) writer(tier string) io.Writer { return &lineWriter{sink: s, tier: tier} }

func (s *logSink) line(tier, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines[tier] = append(s.lines[tier], text)
	if s.out == nil {
		return
	}
	prefix := fmt.Sprintf("%-17s │ ", tier)
	fmt.Fprintln(s.out, s.st.paint(tierColours[tier], prefix)+text)
}

// tail returns the last n lines of a tier without colour codes.
func (s *logSink) tail(tier string, n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lines[tier]
	if len(l) > n {
		l = l[len(l)-n:]
	}
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = stripANSI(x)
	}
	return out
}

// all returns every line of a tier without colour codes.
func (s *logSink) all(tier string) []string { return s.tail(tier, 1<<30) }

type lineWriter struct {
	sink *logSink
	tier string
	mu   sync.Mutex
	buf  []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.sink.line(w.tier, strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// process is one running tier of the operator.
type process struct {
	name    string
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// startProcess starts cmd. On Linux the child is killed if the demo dies
// (Pdeathsig); the thread that started it stays locked until it exits,
// because Pdeathsig fires when that thread ends, not the process.
func startProcess(name string, cmd *exec.Cmd) (*process, error) {
	p := &process{name: name, cmd: cmd, exited: make(chan struct{})}
	cmd.SysProcAttr = sysProcAttr()
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return p, nil
}

// running reports whether the process has not exited.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM (cfzt-runner finishes its current task and exits),
// waits up to grace, then kills the process. It returns how the process
// ended.
func (p *process) stop(grace time.Duration) error {
	if p.running() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s did not stop within %s after SIGTERM; killed", p.name, grace)
	}
	return p.waitErr
}
