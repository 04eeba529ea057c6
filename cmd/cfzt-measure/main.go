// Command cfzt-measure runs a command and reports its peak memory, for the
// benchmark driver (internal/bench):
//
//	cfzt-measure COMMAND [ARG...]
//
// Standard input, output and error are the command's. When the command
// ends, one line "wall=NS maxrss=KiB anon=KiB" goes to file descriptor 3
// (if it is open), and cfzt-measure exits with the command's exit status.
//
// wall is the time from starting the command to its exit, in nanoseconds,
// so that this program's own start is not counted.
// maxrss is ru_maxrss from wait4 of the command: the peak resident set of
// the largest process of its tree. anon is the largest RssAnon of the
// command's own process, read from /proc every 2 ms.
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
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cfzt-measure COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
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
	go func() { anon <- sampleAnon(cmd.Process.Pid, stop) }()
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

// sampleAnon reads RssAnon of process pid every 2 ms until stop is closed
// and returns the largest value seen, in KiB.
func sampleAnon(pid int, stop <-chan struct{}) int64 {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	var peak int64
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil {
			if _, rest, ok := strings.Cut(string(data), "RssAnon:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > peak {
						peak = kb
					}
				}
			}
		}
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}
