package cfsim

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Run is the cfsim command: it parses args, serves the simulator until ctx
// is cancelled, then shuts down gracefully. Once the listener is bound it
// prints "listening on http://ADDR" on stdout, so a parent process started
// with --addr 127.0.0.1:0 can learn the port.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cfsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free port)")
	seedPath := fs.String("seed", "", "seed file (.json, or YAML for any other extension)")
	rate := fs.String("rate-limit", fmt.Sprintf("%d/%s", DefaultRateLimit, "5m"), "API requests per token per window, e.g. 1200/5m; 0 disables")
	latency := fs.Duration("latency", 0, "delay added to every API request, e.g. 50ms")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("cfsim: unexpected arguments %v", fs.Args())
	}
	opts := []Option{WithLatency(*latency)}
	requests, window, err := ParseRateLimit(*rate)
	if err != nil {
		return err
	}
	opts = append(opts, WithRateLimit(requests, window))
	if *seedPath != "" {
		seed, err := LoadSeedFile(*seedPath)
		if err != nil {
			return err
		}
		opts = append(opts, WithSeed(seed))
	}
	sim, err := New(opts...)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
