// Command cfzt-demo shows the operator working on this machine, with no
// cluster and no Cloudflare account (`make demo`): it starts a local
// kube-apiserver and the Cloudflare API simulator, installs the CRDs, RBAC
// and samples, runs the manager, kube_worker and cloudflare_worker tiers
// until they converge, prints their log and what they created, then edits
// and deletes a route. Everything it starts is stopped when it exits or is
// interrupted (Ctrl-C).
//
//	cfzt-demo [-short] [-log-level WARNING] [-timeout 3m] [-color auto|always|never] [-samples DIR]
//
// CFZT_DEMO_SHORT=1 is the same as -short.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/cfzt/cfzt-runner/internal/demo"
)

func main() {
	short := flag.Bool("short", envBool("CFZT_DEMO_SHORT"), "quick run: keep the operator's log quiet and show it only on failure")
	samples := flag.String("samples", "", "directory of sample YAML to install (default deploy/samples)")
	logLevel := flag.String("log-level", "WARNING", "the tiers' LOG_LEVEL: WARNING (a line per task), INFO (with results) or DEBUG")
	timeout := flag.Duration("timeout", 3*time.Minute, "longest wait for each convergence")
	colour := flag.String("color", "auto", "colour output: auto, always or never")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first interrupt the demo stops what it started; a
		// second one kills it at once (its children die with it).
		<-ctx.Done()
		stop()
	}()
	_, err := demo.Run(ctx, demo.Options{Out: os.Stdout, SamplesDir: *samples, LogLevel: *logLevel, Short: *short, Timeout: *timeout, Color: useColour(*colour)})
	if err != nil {
		// demo.Run has printed the details and the tiers' last lines.
		fmt.Fprintln(os.Stderr, "cfzt-demo:", err)
		os.Exit(1)
	}
}

func useColour(mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	return isatty.IsTerminal(os.Stdout.Fd())
}

func envBool(name string) bool {
	v := os.Getenv(name)
	return v != "" && v != "0" && v != "false"
}
