package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interruptGrace is how long a run may take to wind down after SIGINT or
// SIGTERM (killing its commands, leaving its loops) before the process
// exits regardless.
const interruptGrace = 5 * time.Second

// interrupt stops a plain run on SIGINT or SIGTERM as ansible-playbook
// stops: the running task is cancelled (its commands killed with their
// process group), no later task starts, nothing more is shown (no failed
// task, no recap), and then
//   - SIGINT prints "[ERROR]: User interrupted execution" and exits 99;
//   - SIGTERM ends the process by that signal, as Python's default
//     handler does, so the parent sees a death by SIGTERM (143 in a shell).
//
// Async jobs run in sessions of their own and survive, as Ansible's do.
type interrupt struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal
	done   chan struct{}

	mu   sync.Mutex
	shut bool // once set, the gated writers drop what they are given
	sig  os.Signal
	once sync.Once
	code int
}

// startInterrupt starts watching for the signals; ctx is the run's.
func startInterrupt() *interrupt {
	it := &interrupt{sigs: make(chan os.Signal, 2), done: make(chan struct{})}
	it.ctx, it.cancel = context.WithCancel(context.Background())
	signal.Notify(it.sigs, os.Interrupt, syscall.SIGTERM)
	go it.watch()
	return it
}

func (it *interrupt) watch() {
	var s os.Signal
	select {
	case s = <-it.sigs:
	case <-it.done:
		return
	}
	it.mu.Lock()
	it.shut, it.sig = true, s
	it.mu.Unlock()
	it.cancel()
	select {
	case <-it.done:
	case <-time.After(interruptGrace):
		// A task that does not heed the cancellation (a read from a
		// terminal, say) does not keep the process alive.
		os.Exit(it.exit())
	}
}

// gated wraps w so that nothing is written once a signal has arrived.
func (it *interrupt) gated(w io.Writer) io.Writer { return &gatedWriter{it: it, w: w} }

type gatedWriter struct {
	it *interrupt
	w  io.Writer
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.it.mu.Lock()
	defer g.it.mu.Unlock()
	if g.it.shut {
		return len(p), nil
	}
	return g.w.Write(p)
}

// finish is the exit status of a run that returned code: code itself, or
// the signal's outcome when one arrived.
func (it *interrupt) finish(code int) int {
	signal.Stop(it.sigs)
	close(it.done)
	it.mu.Lock()
	s := it.sig
	it.mu.Unlock()
	if s == nil {
		return code
	}
	return it.exit()
}

// exit reports the signal and returns the exit status; for SIGTERM it
// first ends the process by the signal itself.
func (it *interrupt) exit() int {
	it.once.Do(func() {
		it.mu.Lock()
		s := it.sig
		it.mu.Unlock()
		if s == syscall.SIGTERM {
			signal.Reset(syscall.SIGTERM)
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
			time.Sleep(time.Second) // the signal ends the process first
			it.code = 128 + int(syscall.SIGTERM)
			return
		}
		_, _ = io.WriteString(os.Stderr, "[ERROR]: User interrupted execution\n")
		it.code = 99
	})
	return it.code
}
