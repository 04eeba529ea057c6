package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestOperatorFlagParsing(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 0, "0": 0, "60": time.Minute, "1.5": 1500 * time.Millisecond, "90s": 90 * time.Second, "2m": 2 * time.Minute} {
		got, err := parseInterval(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"-1", "soon", "-5s"} {
		_, err := parseInterval(bad)
		require.Error(t, err, bad)
	}

	gvk, err := parseKind("gateway.networking.k8s.io/v1/HTTPRoute")
	require.NoError(t, err)
	require.Equal(t, schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}, gvk)
	gvk, err = parseKind("v1/ConfigMap")
	require.NoError(t, err)
	require.Equal(t, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, gvk)
	for _, bad := range []string{"ConfigMap", "v1/", "/ConfigMap", "a/b/c/Kind"} {
		_, err := parseKind(bad)
		require.Error(t, err, bad)
	}

	require.Equal(t, "cfzt-kube-worker", leaseName("kube_worker"))
	require.Equal(t, "cfzt-manager", leaseName("Manager"))

	// LOG_LEVEL as the seed entrypoint maps it.
	for level, v := range map[string]int{"DEBUG": 2, "debug": 2, "INFO": 1, "WARNING": 0, "ERROR": 0, "": 0} {
		require.Equal(t, v, logLevelVerbosity(level), level)
	}
}

func TestWatchNamespaces(t *testing.T) {
	t.Setenv("WATCH_NAMESPACES", "")
	t.Setenv("OPERATOR_NAMESPACE", "ops")
	require.Empty(t, watchNamespaces(), "empty means all namespaces")
	t.Setenv("WATCH_NAMESPACES", " apps, web,apps ")
	require.Equal(t, []string{"apps", "web", "ops"}, watchNamespaces())
}

func TestOperatorFlagsRegistered(t *testing.T) {
	t.Setenv("POLL_INTERVAL_SECONDS", "")
	t.Setenv("REPLICAS", "3")
	t.Setenv("ROLE", "cloudflare_worker")
	c, books, err := parseArgs([]string{"--watch", "--interval", "3600", "--watch-kind", "v1/ConfigMap", "--metrics-addr", ":8080", "--log-format", "json", "pb.yml"})
	require.NoError(t, err)
	require.Equal(t, []string{"pb.yml"}, books)
	require.True(t, c.op.watch)
	require.True(t, c.op.leaderElect, "REPLICAS > 1 turns leader election on")
	require.Equal(t, "cfzt-cloudflare-worker", c.op.leaseName)
	require.True(t, c.op.handles())
	c, _, err = parseArgs([]string{"pb.yml"})
	require.NoError(t, err)
	require.False(t, c.op.handles(), "a plain run stays with the default path")
}

// TestPollIntervalAloneRunsOnce checks that the seeds' POLL_INTERVAL_SECONDS
// does not turn a plain run into the operator loop: like ansible-playbook,
// cfzt-runner PLAYBOOK runs once and exits; only --interval or --watch loop.
func TestPollIntervalAloneRunsOnce(t *testing.T) {
	dir := t.TempDir()
	pb := "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: one run\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "playbook.yml"), []byte(pb), 0o644))
	res := runCLIEnv(t, dir, t.TempDir(), []string{"POLL_INTERVAL_SECONDS=60"}, "-i", "localhost,", "playbook.yml")
	require.Equal(t, 0, res.rc, res.stderr)
	require.Equal(t, 1, strings.Count(res.stdout, "PLAY RECAP"), res.stdout)
	require.Equal(t, 1, strings.Count(res.stdout, `"msg": "one run"`), res.stdout)

	c, _, err := parseArgs([]string{"playbook.yml"})
	require.NoError(t, err)
	t.Setenv("POLL_INTERVAL_SECONDS", "60")
	require.False(t, c.op.handles(), "the environment alone keeps the one-shot path")
	require.Equal(t, "", c.op.intervalSetting())
	c, _, err = parseArgs([]string{"--watch", "playbook.yml"})
	require.NoError(t, err)
	require.Equal(t, "60", c.op.intervalSetting(), "--watch resyncs every POLL_INTERVAL_SECONDS")
	c, _, err = parseArgs([]string{"--watch", "--interval", "5", "playbook.yml"})
	require.NoError(t, err)
	require.Equal(t, "5", c.op.intervalSetting(), "--interval wins over the environment")
}
