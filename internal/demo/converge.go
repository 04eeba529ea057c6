package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

// converge waits until the operator has done its work: no CloudflareTask is
// left, every live sample route carries the IDs the operator writes back
// and each of them names an object that exists in Cloudflare, every deleted
// route is gone from both sides, extra (if any) holds, and the simulator
// has seen no write for a quiet window. It prints what is still missing
// every few seconds and fails with it after the timeout.
func (d *demo) converge(ctx context.Context, what string, extra func(cfsim.StateDump) []string) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	quiet := 3 * time.Second
	if d.opts.Short {
		quiet = 1500 * time.Millisecond
	}
	begin := time.Now()
	lastReport := begin
	var pending []string
	stableSince, writes := time.Time{}, -1
	for {
		if err := d.checkTiersRunning(); err != nil {
			return err
		}
		var err error
		pending, err = d.pending(ctx, extra)
		if err != nil && ctx.Err() == nil {
			return err
		}
		if len(pending) == 0 {
			if w := d.sim.CountWrites(); w != writes {
				writes, stableSince = w, time.Now()
			} else if time.Since(stableSince) >= quiet {
				d.say("converged: %s (%s; %d Cloudflare writes so far)", what, time.Since(begin).Round(100*time.Millisecond), writes)
				return nil
			}
		} else {
			writes = -1
			if time.Since(lastReport) >= 10*time.Second {
				lastReport = time.Now()
				d.say("%s", d.st.dim(fmt.Sprintf("waiting (%s): %s", time.Since(begin).Round(time.Second), strings.Join(pending, "; "))))
			}
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return fmt.Errorf("interrupted while waiting until %s: %w", what, parent.Err())
			}
			if len(pending) == 0 {
				pending = []string{"Cloudflare writes did not settle"}
			}
			return fmt.Errorf("not converged after %s (%s): %s", d.opts.Timeout, what, strings.Join(pending, "; "))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// pending lists what is not done yet; empty means converged.
func (d *demo) pending(ctx context.Context, extra func(cfsim.StateDump) []string) ([]string, error) {
	var out []string
	tasks, err := list(ctx, d.dyn, gvrTask, d.h.Namespace)
	if err != nil {
		return nil, err
	}
	for _, t := range tasks {
		phase, _, _ := unstructured.NestedString(t.Object, "status", "phase")
		if phase == "" {
			phase = "Pending"
		}
		msg, _, _ := unstructured.NestedString(t.Object, "status", "message")
		if msg != "" {
			msg = ": " + msg
		}
		out = append(out, fmt.Sprintf("CloudflareTask %s is %s%s", t.GetName(), phase, msg))
	}
	st := d.sim.State()
	for _, r := range d.samples.routes {
		if d.isRemoved(r) {
			out = append(out, d.goneProblems(ctx, st, r)...)
			continue
		}
		obj, err := d.dyn.Resource(gvrRoute).Namespace(r.Namespace).Get(ctx, r.Name, getOpts)
		if err != nil {
			return nil, err
		}
		out = append(out, liveProblems(obj, st)...)
		ok, err := exists(ctx, d.dyn, gvrCM, d.h.Namespace, stateConfigMapName(r.Namespace, r.Name))
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, "no state ConfigMap for "+r.Key())
		}
	}
	if extra != nil {
		out = append(out, extra(st)...)
	}
	return out, nil
}

func (d *demo) isRemoved(r *Route) bool { return slices.Contains(d.removed, r) }

// liveProblems checks a route's written-back IDs against Cloudflare.
func liveProblems(obj *unstructured.Unstructured, st cfsim.StateDump) []string {
	key := obj.GetNamespace() + "/" + obj.GetName()
	ann := obj.GetAnnotations()
	if ann[annLastReconcile] == "" {
		return []string{key + " not reconciled yet"}
	}
	var out []string
	check := func(annName, what string, found bool) {
		if ann[annName] != "" && !found {
			out = append(out, fmt.Sprintf("%s: %s %s not in Cloudflare", key, what, ann[annName]))
		}
	}
	host := ann[annHostname]
	check(annCNAME, "CNAME record", dnsByID(st, ann[annCNAME]) != nil)
	check(annDNS, "DNS record", dnsByID(st, ann[annDNS]) != nil)
	check(annApp, "Access application", appByID(st, ann[annApp]) != nil)
	check(annToken, "service token", tokenByID(st, ann[annToken]) != nil)
	check(annHostRoute, "tunnel ingress rule for "+host+" in tunnel", ingressService(st, host) != "")
	for _, id := range splitList(ann[annPolicies]) {
		if policyByID(st, id) == nil {
			out = append(out, fmt.Sprintf("%s: Access policy %s not in Cloudflare", key, id))
		}
	}
	if ann[annCNAME] == "" && ann[annDNS] == "" {
		out = append(out, key+": no DNS record written back")
	}
	return out
}

// goneProblems lists what is left of a deleted route.
func (d *demo) goneProblems(ctx context.Context, st cfsim.StateDump, r *Route) []string {
	var out []string
	if ok, _ := exists(ctx, d.dyn, gvrCM, d.h.Namespace, stateConfigMapName(r.Namespace, r.Name)); ok {
		out = append(out, "state ConfigMap of deleted "+r.Key()+" still exists")
	}
	for _, rec := range st.DNSRecords {
		if rec.Object.Name == r.Hostname {
			out = append(out, fmt.Sprintf("%s record %s of deleted %s still in Cloudflare", rec.Object.Type, r.Hostname, r.Key()))
		}
	}
	if ingressService(st, r.Hostname) != "" {
		out = append(out, "tunnel ingress rule for "+r.Hostname+" still in Cloudflare")
	}
	for _, a := range st.AccessApplications {
		if a.Object.Domain == r.Hostname {
			out = append(out, "Access application for "+r.Hostname+" still in Cloudflare")
		}
	}
	return out
}

func dnsByID(st cfsim.StateDump, id string) *cfsim.DNSRecord {
	for i := range st.DNSRecords {
		if id != "" && st.DNSRecords[i].Object.ID == id {
			return &st.DNSRecords[i].Object
		}
	}
	return nil
}

func appByID(st cfsim.StateDump, id string) *cfsim.AccessApplication {
	for i := range st.AccessApplications {
		if id != "" && st.AccessApplications[i].Object.ID == id {
			return &st.AccessApplications[i].Object
		}
	}
	return nil
}

func tokenByID(st cfsim.StateDump, id string) *cfsim.ServiceToken {
	for i := range st.ServiceTokens {
		if id != "" && st.ServiceTokens[i].Object.ID == id {
			return &st.ServiceTokens[i].Object
		}
	}
	return nil
}

func policyByID(st cfsim.StateDump, id string) *cfsim.PolicyState {
	for i := range st.AccessPolicies {
		if st.AccessPolicies[i].Policy.ID == id {
			return &st.AccessPolicies[i]
		}
	}
	return nil
}

// ingressService returns the service of the tunnel ingress rule for host
// in any tunnel, or "".
func ingressService(st cfsim.StateDump, host string) string {
	for _, rule := range ingressRules(st) {
		if rule.hostname == host && host != "" {
			return rule.service
		}
	}
	return ""
}

type ingressRule struct{ tunnel, hostname, path, service string }

// ingressRules lists the hostname rules of every tunnel's configuration
// (not the catch-all).
func ingressRules(st cfsim.StateDump) []ingressRule {
	var out []ingressRule
	for _, t := range st.Tunnels {
		ingress, _ := t.Configuration.Config["ingress"].([]any)
		for _, r := range ingress {
			m, _ := r.(map[string]any)
			h, _ := m["hostname"].(string)
			if h == "" {
				continue
			}
			p, _ := m["path"].(string)
			s, _ := m["service"].(string)
			out = append(out, ingressRule{tunnel: t.Tunnel.Name, hostname: h, path: p, service: s})
		}
	}
	return out
}
