package demo

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

// snapshot reads both sides into summary rows. Errors become rows, so a
// summary is always printed.
func (d *demo) snapshot(ctx context.Context) Snapshot {
	return Snapshot{Kubernetes: d.kubeRows(ctx), Cloudflare: cloudflareRows(d.sim.State())}
}

// printSummary prints the Kubernetes and Cloudflare tables.
func (d *demo) printSummary(ctx context.Context, when string) Snapshot {
	s := d.snapshot(ctx)
	fmt.Fprintln(d.out)
	kt := &table{title: "Kubernetes objects " + when, header: []string{"KIND", "NAME", "DETAIL"}}
	for _, r := range s.Kubernetes {
		kt.add(r.Kind, r.Name, r.Detail)
	}
	kt.write(d.out, d.st)
	fmt.Fprintln(d.out)
	ct := &table{title: "Cloudflare objects " + when + " (simulator)", header: []string{"KIND", "NAME", "DETAIL"}}
	for _, r := range s.Cloudflare {
		ct.add(r.Kind, r.Name, r.Detail)
	}
	ct.write(d.out, d.st)
	return s
}

func (d *demo) kubeRows(ctx context.Context) []Row {
	var rows []Row
	add := func(kind, name, detail string) { rows = append(rows, Row{kind, name, detail}) }
	fail := func(kind string, err error) { add(kind, "(error)", err.Error()) }

	if items, err := list(ctx, d.dyn, gvrTenant, ""); err != nil {
		fail("CloudflareZeroTrustTenant", err)
	} else {
		for _, t := range items {
			s, reason := condition(&t, "Ready")
			routes, _, _ := unstructured.NestedInt64(t.Object, "status", "summary", "managedRoutes")
			add("CloudflareZeroTrustTenant", objectKey(&t), fmt.Sprintf("Ready=%s %s, %d routes", or(s, "?"), reason, routes))
		}
	}
	if items, err := list(ctx, d.dyn, gvrTemplate, ""); err != nil {
		fail("CloudflareZeroTrustTemplate", err)
	} else {
		for _, t := range items {
			add("CloudflareZeroTrustTemplate", objectKey(&t), "")
		}
	}
	if items, err := list(ctx, d.dyn, gvrRoute, ""); err != nil {
		fail("HTTPRoute", err)
	} else {
		for _, r := range items {
			ann := r.GetAnnotations()
			if ann[annEnabled] != "true" {
				continue
			}
			add("HTTPRoute", objectKey(&r), ann[annHostname]+"  "+writtenBack(ann))
		}
	}
	if items, err := list(ctx, d.dyn, gvrCM, d.h.Namespace); err != nil {
		fail("ConfigMap", err)
	} else {
		states := map[string]string{}
		for _, r := range d.samples.routes {
			states[stateConfigMapName(r.Namespace, r.Name)] = r.Key()
		}
		for _, c := range items {
			switch {
			case states[c.GetName()] != "":
				add("ConfigMap", objectKey(&c), "state of route "+states[c.GetName()])
			case c.GetLabels()["app.kubernetes.io/managed-by"] == "cfzt-operator" || strings.HasPrefix(c.GetName(), "cfzt-"):
				add("ConfigMap", objectKey(&c), "operator bookkeeping")
			}
		}
	}
	if items, err := list(ctx, d.dyn, gvrSecret, ""); err != nil {
		fail("Secret", err)
	} else {
		for _, s := range items {
			if s.GetLabels()["app.kubernetes.io/managed-by"] == "cfzt-operator" {
				keys, _, _ := unstructured.NestedMap(s.Object, "data")
				add("Secret", objectKey(&s), "service-token credentials: "+strings.Join(sortedKeys(keys), ", "))
			}
		}
	}
	if items, err := list(ctx, d.dyn, gvrDeploy, d.h.Namespace); err != nil {
		fail("Deployment", err)
	} else {
		for _, dep := range items {
			detail := "the manager's own (deploy/manager.yaml)"
			if owners := dep.GetOwnerReferences(); len(owners) > 0 {
				detail = "created by the manager, owned by " + owners[0].Name
			}
			add("Deployment", objectKey(&dep), detail+"; ROLE="+containerEnv(&dep, "ROLE"))
		}
	}
	if items, err := list(ctx, d.dyn, gvrConfig, d.h.Namespace); err != nil {
		fail("CloudflareZeroTrustOperatorConfig", err)
	} else {
		for _, c := range items {
			gen, _, _ := unstructured.NestedInt64(c.Object, "status", "observedGeneration")
			s, reason := condition(&c, "Ready")
			add("CloudflareZeroTrustOperatorConfig", objectKey(&c), fmt.Sprintf("generation %d applied %d, Ready=%s %s (no pods run here)", c.GetGeneration(), gen, or(s, "?"), reason))
		}
	}
	if items, err := list(ctx, d.dyn, gvrTask, d.h.Namespace); err != nil {
		fail("CloudflareTask", err)
	} else {
		add("CloudflareTask", d.h.Namespace+"/*", fmt.Sprintf("%d in the queue", len(items)))
	}
	return rows
}

// writtenBack abbreviates the IDs the operator wrote back to a route.
func writtenBack(ann map[string]string) string {
	var parts []string
	for _, x := range []struct{ ann, label string }{
		{annHostRoute, "tunnel"}, {annCNAME, "cname"}, {annDNS, "A " + ann[annPrefix+"dnsRecordIp"]},
		{annApp, "app"}, {annPolicies, "policy"}, {annToken, "token"},
	} {
		if ann[x.ann] != "" {
			parts = append(parts, x.label+" ✓")
		}
	}
	if len(parts) == 0 {
		return "(nothing written back)"
	}
	return strings.Join(parts, " ")
}

// containerEnv returns the value of an environment variable of a
// Deployment's first container.
func containerEnv(dep *unstructured.Unstructured, name string) string {
	cs, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	if len(cs) == 0 {
		return ""
	}
	env, _, _ := unstructured.NestedSlice(cs[0].(map[string]any), "env")
	for _, e := range env {
		m, _ := e.(map[string]any)
		if m["name"] == name {
			v, _ := m["value"].(string)
			return v
		}
	}
	return ""
}

func cloudflareRows(st cfsim.StateDump) []Row {
	var rows []Row
	add := func(kind, name, detail string) { rows = append(rows, Row{kind, name, detail}) }
	for _, r := range ingressRules(st) {
		add("Tunnel route", r.hostname+r.path, "→ "+r.service+" (tunnel "+r.tunnel+")")
	}
	for _, rec := range st.DNSRecords {
		detail := rec.Object.Content
		if rec.Object.Proxied {
			detail += " (proxied)"
		} else {
			detail += " (DNS only)"
		}
		add("DNS "+rec.Object.Type, rec.Object.Name, detail)
	}
	for _, a := range st.AccessApplications {
		add("Access app", a.Object.Name, a.Object.Domain+", session "+a.Object.SessionDuration)
	}
	groups := map[string]string{}
	for _, g := range st.AccessGroups {
		groups[g.Object.ID] = g.Object.Name
	}
	for _, p := range st.AccessPolicies {
		if p.AppID == "" && p.Policy.Reusable && p.Policy.AppCount != nil && *p.Policy.AppCount == 0 {
			continue // a reusable policy no app uses is not the operator's
		}
		add("Access policy", p.Policy.Name, p.Policy.Decision+": "+describeRules(p.Policy.Include, groups))
	}
	for _, t := range st.ServiceTokens {
		add("Service token", t.Object.Name, "client ID "+mask(t.Object.ClientID)+", duration "+t.Object.Duration)
	}
	return rows
}

// describeRules summarises Access include rules, e.g. "email alice@x, email
// bob@x, service token".
func describeRules(rules []map[string]any, groups map[string]string) string {
	var out []string
	for _, r := range rules {
		for sel, v := range r {
			m, _ := v.(map[string]any)
			switch sel {
			case "email":
				out = append(out, fmt.Sprint(m["email"]))
			case "email_domain":
				out = append(out, "@"+fmt.Sprint(m["domain"]))
			case "group":
				id := fmt.Sprint(m["id"])
				out = append(out, "group "+or(groups[id], id))
			case "service_token":
				out = append(out, "service token")
			case "any_valid_service_token":
				out = append(out, "any service token")
			default:
				out = append(out, strings.ReplaceAll(sel, "_", " "))
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// mask keeps the last four characters of an identifier (before a
// ".access"-style suffix).
func mask(s string) string {
	id, suffix, _ := strings.Cut(s, ".")
	if suffix != "" {
		suffix = "." + suffix
	}
	if len(id) <= 8 {
		return "****" + suffix
	}
	return "…" + id[len(id)-4:] + suffix
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
