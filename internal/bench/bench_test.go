package bench

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestKubeVerb(t *testing.T) {
	for _, c := range []struct{ method, url, want string }{
		{"GET", "/api", "discovery"},
		{"GET", "/apis/apps/v1", "discovery"},
		{"GET", "/openapi/v3", "discovery"},
		{"GET", "/api/v1/namespaces/bench/configmaps?labelSelector=a", "list"},
		{"GET", "/api/v1/namespaces/bench/configmaps/cm-0001", "get"},
		{"GET", "/api/v1/namespaces/bench/configmaps?watch=true", "watch"},
		{"GET", "/api/v1/namespaces", "list"},
		{"GET", "/api/v1/namespaces/bench", "get"},
		{"GET", "/apis/gateway.networking.k8s.io/v1/httproutes", "list"},
		{"PATCH", "/apis/cfzt.cloudflare.com/v1alpha1/namespaces/x/cloudflaretasks/t/status", "patch"},
		{"POST", "/api/v1/namespaces/bench/configmaps", "create"},
		{"PUT", "/api/v1/namespaces/bench/configmaps/a", "update"},
		{"DELETE", "/api/v1/namespaces/bench/configmaps/a", "delete"},
	} {
		if got := kubeVerb(httptest.NewRequest(c.method, c.url, nil)); got != c.want {
			t.Errorf("%s %s = %s, want %s", c.method, c.url, got, c.want)
		}
	}
}

func TestSummarizeAndRecap(t *testing.T) {
	s := summarize([]float64{5, 1, 3, 2, 4})
	if s.med != 3 || s.min != 1 || s.max != 5 {
		t.Errorf("summarize = %+v", s)
	}
	if s := summarize([]float64{4, 1, 3, 2}); s.med != 2.5 {
		t.Errorf("even median = %v", s.med)
	}
	out := "TASK [x]\nok: [localhost]\n\nPLAY RECAP ****\nlocalhost                  : ok=1    changed=0    failed=0    \n\n"
	if got := recap(out); got != "localhost : ok=1 changed=0 failed=0" {
		t.Errorf("recap = %q", got)
	}
	if ratio(10, 0.5) != "20×" || ratio(3, 2) != "1.5×" || ratio(1, 0) != "–" {
		t.Error("ratio formatting")
	}
}

func TestMarkdown(t *testing.T) {
	b := &Bench{Runners: []*Runner{{Name: "ansible-playbook"}, {Name: "cfzt-runner"}}, Runs: 2, Warmup: 1}
	sc := &Scenario{ID: 1, Name: "startup", Title: "Startup"}
	res := &Result{Case: "debug", Phases: []string{""}, Samples: map[string]map[string][]Sample{
		"ansible-playbook": {"": {{Wall: time.Second, RSSKB: 51200, AnonKB: 40960}, {Wall: 3 * time.Second, RSSKB: 51200, AnonKB: 40960}}},
		"cfzt-runner":      {"": {{Wall: 20 * time.Millisecond, RSSKB: 10240, AnonKB: 3072, Requests: map[string]int{"k8s list": 1}}}},
	}}
	md := b.Markdown(sc, []*Result{res}, nil)
	for _, want := range []string{"### 1. Startup", "| debug | 2.00 s (1.00 s–3.00 s) | 20 ms (20 ms–20 ms) | 100× | 50 MiB (50 MiB–50 MiB) | 10 MiB (10 MiB–10 MiB) | 5.0× | 40 MiB / 3.0 MiB (13×) | – / k8s list 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
}
