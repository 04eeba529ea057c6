// Command cfsim serves the in-repo Cloudflare v4 API simulator (package
// internal/cfsim) so that Ansible roles and other processes can be tested
// against it over HTTP.
//
//	cfsim --addr 127.0.0.1:0 --seed seed.yaml --rate-limit 1200/5m --latency 20ms
//
// It prints "listening on http://ADDR" once ready and stops on SIGTERM or
// SIGINT. The API is under /client/v4; test controls are under /__admin/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := cfsim.Run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
