// Command cfzt-measure runs a command and reports its peak memory, for the
// benchmark driver (internal/bench):
//
//	cfzt-measure [-tree] COMMAND [ARG...]
//
// Standard input, output and error are the command's. When the command
// ends, one line "wall=NS maxrss=KiB anon=KiB" goes to file descriptor 3
// (if it is open), and cfzt-measure exits with the command's exit status.
//
// wall is the time from starting the command to its exit, in nanoseconds,
// so that this program's own start is not counted.
// maxrss is ru_maxrss from wait4 of the command: the peak resident set of
// the largest process of its tree. anon is the largest RssAnon of the
// command's own process, read from /proc every 2 ms. With -tree, anon is
// instead the largest sum of RssAnon over the command and all its
// descendants, read every 10 ms: the private memory of a program that
// works through child processes (ansible-operator starts ansible-runner,
// which starts ansible-playbook and its modules), as a container's memory
// limit would count it.
//
// Why a separate, small program: Linux carries the resident high-water mark
// of the address space a process had before exec into its ru_maxrss, and
// Go's os/exec starts children on the parent's address space (vfork). A
// command started by the benchmark driver would report at least the
// driver's own resident size. Started from this program, whose resident
// size is a few MiB, it reports its own.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	args, tree := os.Args[1:], false
	if len(args) > 0 && args[0] == "-tree" {
		args, tree = args[1:], true
	}
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: cfzt-measure [-tree] COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The command dies with this process, so that a killed benchmark
	// leaves nothing behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "cfzt-measure:", err)
		os.Exit(127)
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	stop := make(chan struct{})
	anon := make(chan int64)
	go func() {
		if tree {
			anon <- samplePeak(cmd.Process.Pid, 10*time.Millisecond, treeAnon, stop)
		} else {
			anon <- samplePeak(cmd.Process.Pid, 2*time.Millisecond, rssAnon, stop)
		}
	}()
	_ = cmd.Wait()
	wall := time.Since(start)
	close(stop)
	peakAnon := <-anon
	var maxrss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxrss = ru.Maxrss
	}
	if f := os.NewFile(3, "measure"); f != nil {
		fmt.Fprintf(f, "wall=%d maxrss=%d anon=%d\n", wall.Nanoseconds(), maxrss, peakAnon)
		f.Close()
	}
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	os.Exit(code)
}

// samplePeak calls read(pid) every interval until stop is closed and
// returns the largest value seen.
func samplePeak(pid int, interval time.Duration, read func(int) int64, stop <-chan struct{}) int64 {
	var peak int64
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		peak = max(peak, read(pid))
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}

// rssAnon is the RssAnon of process pid in KiB, or 0 once it is gone.
func rssAnon(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(data), "RssAnon:")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return 0
	}
	kb, _ := strconv.ParseInt(f[0], 10, 64)
	return kb
}

// treeAnon is the sum of RssAnon over process pid and its descendants,
// found through the children lists of each process's threads.
func treeAnon(pid int) int64 {
	var sum int64
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		sum += rssAnon(p)
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		for _, t := range tasks {
			data, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, c := range strings.Fields(string(data)) {
				if n, err := strconv.Atoi(c); err == nil {
					todo = append(todo, n)
				}
			}
		}
	}
	return sum
}
