package testbin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Event is one line of cfzt-runner's `--log-format json` output.
type Event map[string]any

// Str returns field k as a string ("" when absent or not a string).
func (e Event) Str(k string) string { s, _ := e[k].(string); return s }

// Proc is a running command whose standard output must be JSON lines,
// such as cfzt-runner with --log-format json. Its events are collected as
// they come; at the end of the test it is killed if still running, any
// line that was not JSON fails the test, and a failed test logs its
// standard error and events.
type Proc struct {
	t      testing.TB
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	events []Event
	bad    []string
	stderr bytes.Buffer
	done   chan struct{}
	code   int
}

// StartJSON starts cmd, whose Stdout and Stderr must be unset.
func StartJSON(t testing.TB, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	p := &Proc{t: t, name: name, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.stderr.Write(b)
	})
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev Event
			p.mu.Lock()
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				p.bad = append(p.bad, sc.Text())
			} else {
				p.events = append(p.events, ev)
			}
			p.mu.Unlock()
		}
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			for _, ev := range p.Events() {
				b, _ := json.Marshal(ev)
				t.Logf("%s: %s", p.name, b)
			}
			s := p.Stderr()
			if len(s) > 4000 {
				s = "..." + s[len(s)-4000:]
			}
			t.Logf("%s stderr:\n%s", p.name, s)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.bad) > 0 {
			t.Errorf("%s: stdout lines that are not JSON: %q", p.name, p.bad)
		}
	})
	return p
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Name is the name the process was started with.
func (p *Proc) Name() string { return p.name }

// Stderr returns what the process wrote to standard error so far.
func (p *Proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Events returns a copy of the events so far.
func (p *Proc) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...)
}

// Count counts the events that match.
func (p *Proc) Count(match func(Event) bool) int {
	n := 0
	for _, ev := range p.Events() {
		if match(ev) {
			n++
		}
	}
	return n
}

// WaitFor returns the first event at index >= from that matches, and its
// index, failing the test after timeout or when the process exits first.
func (p *Proc) WaitFor(from int, timeout time.Duration, what string, match func(Event) bool) (Event, int) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := p.Events()
		for i := from; i < len(evs); i++ {
			if match(evs[i]) {
				return evs[i], i
			}
		}
		select {
		case <-p.done:
			p.t.Fatalf("%s exited (code %d) before %s", p.name, p.code, what)
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: no %s within %s", p.name, what, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig syscall.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
}

// Exit waits for the process to end and returns its exit code.
func (p *Proc) Exit(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		p.t.Fatalf("%s still running after %s", p.name, timeout)
		return -1
	}
}
