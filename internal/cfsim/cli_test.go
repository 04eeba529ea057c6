package cfsim

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunServesUntilCancelled(t *testing.T) {
	seedPath := filepath.Join(t.TempDir(), "seed.yaml")
	require.NoError(t, os.WriteFile(seedPath, []byte(yamlSeed), 0o600))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"--addr", "127.0.0.1:0", "--seed", seedPath, "--rate-limit", "2/1m", "--latency", "1ms"}, outW, io.Discard)
		outW.Close()
	}()

	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "listening on http://127.0.0.1:"), line)
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	go func() { _, _ = io.Copy(io.Discard, outR) }()

	get := func() int {
		req, err := http.NewRequest(http.MethodGet, base+APIPrefix+"/zones?name=example.com", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer tok-a")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, http.StatusOK, get())
	require.Equal(t, http.StatusOK, get())
	require.Equal(t, http.StatusTooManyRequests, get(), "--rate-limit is applied")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop after cancellation")
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"--rate-limit", "lots"},
		{"--seed", "/does/not/exist.yaml"},
		{"--bogus"},
		{"extra"},
		{"--addr", "256.0.0.1:0"},
	} {
		require.Error(t, Run(ctx, args, io.Discard, io.Discard), "%v", args)
	}
}
