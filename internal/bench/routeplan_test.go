package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// planVars looks a name up in the cycle's facts, then in the kube_worker
// role's vars and defaults, which are templated on use as in a run.
type planVars struct{ facts, role *value.Dict }

func (p planVars) Lookup(name string) (any, bool, bool) {
	if v, ok := p.facts.Get(name); ok {
		return v, false, true
	}
	v, ok := p.role.Get(name)
	return v, true, ok
}

// routePlanInputs gives the facts route_plan.j2 reads for n routes spread
// over two tenants, as list_resources.yml would set them, with no state.
func routePlanInputs(t testing.TB, n int) (*template.Engine, planVars, string) {
	t.Helper()
	role := filepath.Join("..", "..", "ansible", "roles", "kube_worker")
	vars := value.NewDict(0)
	for _, f := range []string{"defaults/main.yml", "vars/main.yml"} {
		data, err := os.ReadFile(filepath.Join(role, f))
		if err != nil {
			t.Fatal(err)
		}
		docs, _, err := value.DecodeYAML(f, data)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: %v", f, err)
		}
		vars.Update(docs[0].(*value.Dict))
	}
	src, err := os.ReadFile(filepath.Join(role, "templates", "route_plan.j2"))
	if err != nil {
		t.Fatal(err)
	}
	namespaces := []any{"bench-a", "bench-b"}
	var tenants, routes []any
	for _, ns := range namespaces {
		tenants = append(tenants, mustValue(t, map[string]any{
			"metadata": map[string]any{"name": "tenant", "namespace": ns},
			"spec": map[string]any{"accountId": e2e.AccountID, "tunnelId": "6f6a2b4e-1c52-4b5e-9d8a-2f0f6b9b1a11",
				"credentialRef": map[string]any{"name": "cf-token"}},
		}))
	}
	for i := range n {
		host := fmt.Sprintf("app-%04d.%s", i, e2e.ZoneNames[i%len(e2e.ZoneNames)])
		routes = append(routes, mustValue(t, map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("route-%04d", i), "namespace": namespaces[i%2],
				"uid": fmt.Sprintf("00000000-0000-0000-0000-%012d", i), "annotations": routeAnnotations(i, host)},
			"spec": map[string]any{"hostnames": []any{host}, "rules": []any{map[string]any{"backendRefs": []any{
				map[string]any{"name": fmt.Sprintf("svc-%04d", i), "port": 8080}}}}},
		}))
	}
	facts := mustValue(t, map[string]any{
		"kw_routes": routes, "kw_tenants": tenants, "kw_templates": []any{}, "kw_state_cms": []any{},
		"kw_task_index": map[string]any{}, "kw_lb_ips": map[string]any{}, "kw_tenant_checks": map[string]any{},
		"kw_zone_misses": map[string]any{}, "kw_now_epoch": 1_800_000_000, "kw_watch_namespaces": namespaces,
	}).(*value.Dict)
	eng := template.New(lookup.Libraries()...)
	eng.Getenv = func(string) (string, bool) { return "", false }
	return eng, planVars{facts: facts, role: vars}, string(src)
}

func mustValue(t testing.TB, v any) any {
	t.Helper()
	return value.FromGo(v)
}

func renderPlan(t testing.TB, eng *template.Engine, vars planVars, src string) *value.Dict {
	t.Helper()
	out, err := eng.Render(src, vars, template.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := value.DecodeJSON([]byte(value.Str(out)))
	if err != nil {
		t.Fatal(err)
	}
	return plan.(*value.Dict)
}

// steadyState records a state ConfigMap for every route the plan would
// reconcile, as a completed CloudflareTask leaves it, so that the next
// plan finds every route in sync.
func steadyState(t testing.TB, plan *value.Dict, now int) []any {
	routes, _ := plan.Get("routes")
	var cms []any
	for _, r := range routes.([]any) {
		e := r.(*value.Dict)
		if a, _ := e.Get("action"); a != "reconcile" {
			t.Fatalf("route %v: action %v, want reconcile", must(e, "key"), a)
		}
		spec := must(e, "spec").(*value.Dict)
		ops := must(spec, "operations").(*value.Dict)
		dnsOnly := must(must(ops, "dnsRecord").(*value.Dict), "enabled") == true
		cms = append(cms, mustValue(t, map[string]any{
			"metadata": map[string]any{"name": must(e, "cm")},
			"data": map[string]any{
				"hostname": must(spec, "hostname"), "account_id": must(spec, "accountId"), "tunnel_id": must(spec, "tunnelId"),
				"dns_only": fmt.Sprint(dnsOnly), "annotation_hash": must(e, "hash"), "last_sync_epoch": fmt.Sprint(now),
				"zone_id": "zone-id", "zone_name": "example.com", "cloudflare_ids": "{}",
				"httproute_namespace": must(e, "namespace"), "httproute_name": must(e, "name"), "httproute_uid": must(e, "uid"),
			},
		}))
	}
	return cms
}

func must(d *value.Dict, k string) any {
	v, _ := d.Get(k)
	return v
}

// TestRoutePlanSteadyState checks the benchmark's premise: with the state a
// finished cycle leaves, every route of the plan is in sync.
func TestRoutePlanSteadyState(t *testing.T) {
	eng, vars, src := routePlanInputs(t, 40)
	cms := steadyState(t, renderPlan(t, eng, vars, src), 1_800_000_000)
	vars.facts.Set("kw_state_cms", cms)
	routes, _ := renderPlan(t, eng, vars, src).Get("routes")
	if len(routes.([]any)) != 40 {
		t.Fatalf("%d routes planned, want 40", len(routes.([]any)))
	}
	for _, r := range routes.([]any) {
		if a := must(r.(*value.Dict), "action"); a != "ok" {
			t.Fatalf("route %v: action %v (%v), want ok", must(r.(*value.Dict), "key"), a, must(r.(*value.Dict), "reason"))
		}
	}
}

// BenchmarkRoutePlanSteadyState renders route_plan.j2 over 1,000 routes in
// a steady state: the template work of one kube_worker cycle at N = 1,000.
func BenchmarkRoutePlanSteadyState(b *testing.B) {
	eng, vars, src := routePlanInputs(b, 1000)
	vars.facts.Set("kw_state_cms", steadyState(b, renderPlan(b, eng, vars, src), 1_800_000_000))
	b.ReportAllocs()
	for b.Loop() {
		renderPlan(b, eng, vars, src)
	}
}
