package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/testbin"
	"github.com/stretchr/testify/require"
)

// logWidgetCRD is a namespaced kind for the operator-sdk mode to watch.
const logWidgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.logs.example.test
spec:
  group: logs.example.test
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`

// requireLogLine checks that line is one JSON object with the fields
// both operator modes share: a level, a numeric ts and a string msg.
func requireLogLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var ev map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &ev), "not a JSON log line: %q", line)
	require.Contains(t, []any{"info", "warn", "error"}, ev["level"], line)
	require.IsType(t, float64(0), ev["ts"], line)
	require.Greater(t, ev["ts"].(float64), float64(1.5e9), line)
	require.IsType(t, "", ev["msg"], line)
	return ev
}

// TestOperatorLogsJSON runs both operator modes on a real kube-apiserver
// with JSON logs and parses every line they write: the operator-sdk mode
// (`cfzt-runner operator --log-format json`, a Widget watched with a
// role) and the --watch operator (CFZT_LOG_FORMAT=json, a playbook that
// loops over ConfigMaps). Every line has level, ts and msg; the lines of
// a task name it ("task") and the object it is about ("key",
// namespace/name).
func TestOperatorLogsJSON(t *testing.T) {
	if os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("CFZT_KUBE_APISERVER is not set (see internal/kubetest)")
	}
	cluster, err := kubetest.Start(kubetest.Options{})
	require.NoError(t, err)
	t.Cleanup(cluster.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	require.NoError(t, cluster.ApplyYAML(ctx, logWidgetCRD))
	require.NoError(t, cluster.WaitForCRD(ctx, "widgets.logs.example.test"))
	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: logs\n"))

	t.Run("sdk", func(t *testing.T) {
		dir := t.TempDir()
		write := func(name, body string) {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
		}
		write("watches.yaml", "- version: v1\n  group: logs.example.test\n  kind: Widget\n  role: widget\n")
		write("roles/widget/tasks/main.yml", "- name: say hello\n  ansible.builtin.debug:\n    msg: hello {{ ansible_operator_meta.name }}\n")
		t.Setenv("ANSIBLE_ROLES_PATH", filepath.Join(dir, "roles"))
		t.Setenv(logFormatEnv, "text") // the flag wins over the environment
		logs := startInProcess(t, dir, cluster.AdminKubeconfig, "logs", "--log-format=json")
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(logs())
			}
		})
		require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: logs.example.test/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: logs\n"))
		waitFor(t, 2*time.Minute, "the role's debug task in the log", func() bool {
			return strings.Contains(logs(), `"task":"widget : say hello"`)
		})
		var task map[string]any
		for _, l := range strings.Split(strings.TrimSpace(logs()), "\n") {
			ev := requireLogLine(t, l)
			if ev["task"] == "widget : say hello" && ev["msg"] == "[playbook debug]" {
				task = ev
			}
		}
		require.NotNil(t, task, "the debug task's line:\n%s", logs())
		require.Equal(t, "logs/w1", task["key"])
		require.Equal(t, "info", task["level"])
		require.Equal(t, "hello w1", task["EventData.Message"])
	})

	t.Run("watch", func(t *testing.T) {
		bin, err := testbin.Runner(cluster.Dir)
		require.NoError(t, err)
		require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n  namespace: logs\ndata: {a: b}\n"))
		dir := t.TempDir()
		book := filepath.Join(dir, "pb.yml")
		require.NoError(t, os.WriteFile(book, []byte(`- hosts: localhost
  gather_facts: false
  tasks:
    - name: read the config maps
      kubernetes.core.k8s_info:
        kind: ConfigMap
        namespace: logs
      register: cms
    - name: show a config map
      ansible.builtin.debug:
        msg: "{{ item.metadata.name }}"
      loop: "{{ cms.resources | selectattr('metadata.name', 'equalto', 'cm1') }}"
`), 0o644))
		cmd := exec.Command(bin, "--watch", "--interval", "3600", book)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.AdminKubeconfig, logFormatEnv+"=json", "WATCH_NAMESPACES=logs", "ANSIBLE_FORCE_COLOR=", "HOME="+dir)
		cmd.Dir = dir
		p := testbin.StartJSON(t, "cfzt-runner --watch", cmd)
		p.WaitFor(0, 2*time.Minute, "a first cycle", func(ev testbin.Event) bool { return ev["event"] == "cycle_end" })
		item, _ := p.WaitFor(0, time.Second, "the loop item", func(ev testbin.Event) bool {
			return ev["event"] == "result" && ev["task"] == "show a config map"
		})
		require.Equal(t, "logs/cm1", item["key"])
		require.Equal(t, "cm1", item["msg"])
		require.Equal(t, "info", item["level"])
		for _, ev := range p.Events() {
			b, err := json.Marshal(ev)
			require.NoError(t, err)
			requireLogLine(t, string(b))
		}
		p.Signal(syscall.SIGTERM)
		require.Equal(t, 0, p.Exit(time.Minute))
	})
}

// TestSDKLogText: `--log-format text` (or CFZT_LOG_FORMAT=text) makes the
// operator-sdk mode's lines text: time, level, logger, the quoted msg and
// key=value pairs, no JSON.
func TestSDKLogText(t *testing.T) {
	var out syncBuffer
	t.Setenv(logFormatEnv, "text")
	code := runSDKOperator(context.Background(), []string{"--watches-file=" + filepath.Join(t.TempDir(), "missing.yaml")}, &out, &out)
	require.NotEqual(t, 0, code)
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	require.True(t, sc.Scan(), out.String())
	line := sc.Text()
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ERROR cmd "Failed to load watches\." error=`, line)
	require.False(t, strings.HasPrefix(line, "{"))

	out = syncBuffer{}
	require.Equal(t, 2, runSDKOperator(context.Background(), []string{"--log-format=xml"}, &out, &out))
	require.Contains(t, out.String(), `invalid --log-format "xml": want json or text`)
}
