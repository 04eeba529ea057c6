package k8s

import (
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
	"github.com/stretchr/testify/require"
)

func TestLogOptions(t *testing.T) {
	ns := namespace(t, "log-opts")
	p := runningPod(t, ns, "web", "app", "proxy")
	old := time.Now().Add(-2 * time.Hour)
	p.SetLogs("app", false, kubelet.LogLine{Time: old, Text: "starting"}, kubelet.LogLine{Time: old, Text: "ready"}, kubelet.LogLine{Time: time.Now(), Text: "GET /"})
	p.SetLogs("app", true, kubelet.LogLine{Time: old, Text: "crashed"})
	p.SetLogs("proxy", false, kubelet.LogLine{Time: old, Text: "proxying"})

	res := ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: web, container: app}"})
	require.False(t, changed(res))
	require.Equal(t, "starting\nready\nGET /\n", get(t, res, "log"))
	// str.split("\n"): the last element is the empty string after the
	// final newline.
	require.Equal(t, []any{"starting", "ready", "GET /", ""}, get(t, res, "log_lines"))

	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: web, container: app, tail_lines: 1}"})
	require.Equal(t, "GET /\n", get(t, res, "log"))
	// tail_lines 0 is not sent, as kubernetes.core drops a falsy value.
	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: web, container: app, tail_lines: 0}"})
	require.Equal(t, "starting\nready\nGET /\n", get(t, res, "log"))
	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: web, container: app, since_seconds: '3600'}"})
	require.Equal(t, "GET /\n", get(t, res, "log"))
	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: web, container: app, previous: true}"})
	require.Equal(t, "crashed\n", get(t, res, "log"))

	// all_containers: each container's log in the order of the pod's
	// containerStatuses.
	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: web, all_containers: true}"})
	require.Equal(t, "starting\nready\nGET /\nproxying\n", get(t, res, "log"))

	// Label selectors: the first pod listed.
	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", label_selectors: [app=web], container: proxy}"})
	require.Equal(t, "proxying\n", get(t, res, "log"))

	// A Deployment resolves to a pod through its selector.
	ok(t, call{mod: "k8s", args: `{definition: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: ` + ns + `},
	  spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: app, image: busybox}]}}}}}`})
	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", kind: Deployment, api_version: apps/v1, name: web, container: app, tail_lines: 2}"})
	require.Equal(t, "ready\nGET /\n", get(t, res, "log"))
	noSecrets(t, res)
}

func TestLogFailures(t *testing.T) {
	ns := namespace(t, "log-fail")
	p := runningPod(t, ns, "two", "a", "b")
	p.SetLogs("a", false, kubelet.LogLine{Time: time.Now(), Text: "x"})
	for _, c := range []struct{ args, msg string }{
		{"{namespace: " + ns + ", name: two, container: a, all_containers: true}", "parameters are mutually exclusive: container|all_containers"},
		{"{namespace: " + ns + ", name: two, label_selectors: [app=two]}", "Only one of name or label_selectors can be provided"},
		{"{namespace: " + ns + "}", "name must be provided for resources that do not support namespaced base url"},
		{"{namespace: " + ns + ", kind: Deployment, api_version: apps/v1}", "name must be provided for resources that do not support the log subresource"},
		{"{namespace: " + ns + ", kind: NoSuchKind, name: x}", "Failed to find exact match for v1.NoSuchKind by [kind, name, singularName, shortNames]"},
		{"{namespace: " + ns + ", label_selectors: [app=nothing]}", "No pods in namespace " + ns + " matched selector app=nothing"},
		{"{namespace: " + ns + ", name: nonesuch}", "Pod " + ns + "/nonesuch not found."},
		{"{name: two}", "Pod None/two not found."},
		{"{namespace: " + ns + ", name: two}", "Unable to retrieve log from Pod due to: a container name must be specified for pod two, choose one of: [a b]"},
		{"{namespace: " + ns + ", name: two, container: b, previous: true}", `Unable to retrieve log from Pod due to: previous terminated container "b" in pod "two" not found`},
		{"{namespace: " + ns + ", name: two, container: a, since_seconds: soon}", "Unable to retrieve log from Pod due to: "},
	} {
		_, msg := fails(t, call{mod: "k8s_log", args: c.args})
		if strings.HasSuffix(c.msg, ": ") {
			require.True(t, strings.HasPrefix(msg, c.msg), msg)
			continue
		}
		require.Equal(t, c.msg, msg, c.args)
	}
}

// TestLogHostileKubelet is an attack: a log larger than the limit fails
// the task instead of filling the controller's memory.
func TestLogHostileKubelet(t *testing.T) {
	ns := namespace(t, "log-attack")
	p := runningPod(t, ns, "loud", "main")
	defer func(n int) { maxStreamBytes = n }(maxStreamBytes)
	maxStreamBytes = 1 << 20
	line := strings.Repeat("L", 1000)
	var lines []kubelet.LogLine
	for i := 0; i < 2000; i++ {
		lines = append(lines, kubelet.LogLine{Time: time.Now(), Text: line})
	}
	p.SetLogs("main", false, lines...)
	res, msg := fails(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: loud}"})
	require.Equal(t, "Unable to retrieve log from Pod due to: the log is larger than 1048576 bytes, cfzt-runner's limit", msg)
	require.False(t, res.Has("log"))
	// Under the limit it is whole.
	res = ok(t, call{mod: "k8s_log", args: "{namespace: " + ns + ", name: loud, tail_lines: 10}"})
	require.Len(t, get(t, res, "log_lines"), 11)
}
