package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

// addedEmail is the address the demo adds to a route's Access policy.
const addedEmail = "carol@example.com"

// editRoute adds an email address to the Access route's allow list and
// waits until the application's policy in Cloudflare includes it.
func (d *demo) editRoute(ctx context.Context) error {
	var r *Route
	for _, x := range d.samples.routes {
		if x.Access && len(x.Emails) > 0 {
			r = x
			break
		}
	}
	annName := annPrefix + "access.allowEmails"
	if _, ok := r.obj.GetAnnotations()[annName]; !ok {
		annName = annPrefix + "allowEmails"
	}
	emails := append(slices.Clone(r.Emails), addedEmail)
	before := policyEmails(d.sim.State(), r.Hostname)
	d.sum.EditedRoute = r.Key()
	d.sum.Edit = fmt.Sprintf("%s: %s → %s", annName, strings.Join(r.Emails, ","), strings.Join(emails, ","))
	d.say("kubectl annotate httproute -n %s %s --overwrite %s=%s", r.Namespace, r.Name, annName, strings.Join(emails, ","))
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{annName: strings.Join(emails, ",")}}}
	if err := mergePatch(ctx, d.dyn, gvrRoute, r.Namespace, r.Name, patch); err != nil {
		return err
	}
	err := d.converge(ctx, "the Access policy of "+r.Hostname+" allows "+addedEmail, func(st cfsim.StateDump) []string {
		if !slices.Contains(policyEmails(st, r.Hostname), addedEmail) {
			return []string{"the Access policy of " + r.Hostname + " does not include " + addedEmail + " yet"}
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.say("Access policy of %s: [%s] → [%s]", r.Hostname, strings.Join(before, ", "), strings.Join(policyEmails(d.sim.State(), r.Hostname), ", "))
	return nil
}

// deleteRoute deletes the plain route and waits until its tunnel rule,
// DNS record and state are gone.
func (d *demo) deleteRoute(ctx context.Context) error {
	var r *Route
	for _, x := range d.samples.routes {
		if x.Plain() {
			r = x
			break
		}
	}
	d.sum.DeletedRoute = r.Key()
	d.say("kubectl delete httproute -n %s %s", r.Namespace, r.Name)
	if err := d.dyn.Resource(gvrRoute).Namespace(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	d.removed = append(d.removed, r)
	if err := d.converge(ctx, r.Hostname+" is gone from Cloudflare", nil); err != nil {
		return err
	}
	d.say("%s: tunnel rule, DNS record and state ConfigMap removed", r.Hostname)
	return nil
}

// policyEmails lists the email addresses included by the app-scoped
// policies of the Access application for host.
func policyEmails(st cfsim.StateDump, host string) []string {
	var out []string
	for _, a := range st.AccessApplications {
		if a.Object.Domain != host {
			continue
		}
		for _, p := range st.AccessPolicies {
			if p.AppID != a.Object.ID {
				continue
			}
			for _, rule := range p.Policy.Include {
				if m, ok := rule["email"].(map[string]any); ok {
					out = append(out, fmt.Sprint(m["email"]))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
