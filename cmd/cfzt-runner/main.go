// Command cfzt-runner runs Ansible playbooks natively, without Python.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/playbook"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	writeProfiles := startProfiles()
	code := runSubcommand(ctx, os.Args[1:], runCLI)
	writeProfiles()
	os.Exit(code)
}

// exitCode maps an error to ansible-playbook's exit status.
func exitCode(err error) int {
	var le *playbook.LoadError
	if errors.As(err, &le) {
		return le.Code
	}
	fmt.Fprintln(os.Stderr, "[ERROR]:", err)
	return 1
}
