// Command cfzt-runner runs Ansible playbooks natively, without Python.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/diag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	writeProfiles := startProfiles()
	code := runSubcommand(ctx, os.Args[1:], runCLI)
	writeProfiles()
	os.Exit(code)
}

// startupError reports an error found before anything runs (a module
// registry, extra vars or configuration that does not load) and returns
// its exit status.
func startupError(err error) int {
	fmt.Fprintln(os.Stderr, "[ERROR]:", err)
	return diag.ExitCode(err)
}
