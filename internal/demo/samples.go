package demo

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Route is a sample HTTPRoute and what its annotations ask for.
type Route struct {
	Namespace, Name, Hostname string
	// Access, Emails, Token and DNSOnly are read from the route's own
	// annotations (a template may add more).
	Access   bool
	Emails   []string
	Token    bool
	DNSOnly  bool
	Template string
	obj      *unstructured.Unstructured
}

// Key is namespace/name.
func (r *Route) Key() string { return r.Namespace + "/" + r.Name }

// Kind names what the route demonstrates.
func (r *Route) Kind() string {
	var parts []string
	switch {
	case r.DNSOnly:
		parts = append(parts, "DNS-only A record")
	default:
		parts = append(parts, "tunnel + CNAME")
	}
	if r.Access {
		if len(r.Emails) > 0 {
			parts = append(parts, "Access for "+strings.Join(r.Emails, ", "))
		} else {
			parts = append(parts, "Access")
		}
	}
	if r.Token {
		parts = append(parts, "service token")
	}
	if r.Template != "" {
		parts = append(parts, "settings of template "+r.Template)
	}
	return strings.Join(parts, ", ")
}

// Plain reports a route with nothing but the tunnel rule and its CNAME.
func (r *Route) Plain() bool { return !r.Access && !r.Token && !r.DNSOnly && r.Template == "" }

// samples are the objects of deploy/samples, sorted for installation.
type samples struct {
	objects    []*unstructured.Unstructured
	routes     []*Route
	namespaces []string
	// accountID and tunnelID of the first tenant seed the simulator.
	accountID, tunnelID string
	zones               []string
	// credentials are the tenants' API-token Secrets (namespace, name,
	// key), which the demo fills with the simulator's token.
	credentials [][3]string
	// lbServices are LoadBalancer Services to give an ingress IP.
	lbServices [][2]string
}

func annotation(obj *unstructured.Unstructured, names ...string) string {
	ann := obj.GetAnnotations()
	for _, n := range names {
		if v, ok := ann[annPrefix+n]; ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func (d *demo) loadSamples(ctx context.Context) error {
	dir := d.opts.SamplesDir
	if dir == "" {
		dir = filepath.Join(d.opts.Root, "deploy", "samples")
	}
	objs, err := readObjects(dir)
	if err != nil {
		return err
	}
	s := &samples{}
	nsSeen := map[string]bool{}
	zoneSeen := map[string]bool{}
	var tenants, templates int
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && !nsSeen[ns] {
			nsSeen[ns] = true
			s.namespaces = append(s.namespaces, ns)
		}
		switch o.GetKind() {
		case "CloudflareZeroTrustTenant":
			tenants++
			if s.accountID == "" {
				s.accountID, _, _ = unstructured.NestedString(o.Object, "spec", "accountId")
				s.tunnelID, _, _ = unstructured.NestedString(o.Object, "spec", "tunnelId")
			}
			name, _, _ := unstructured.NestedString(o.Object, "spec", "credentialRef", "name")
			key, _, _ := unstructured.NestedString(o.Object, "spec", "credentialRef", "key")
			if key == "" {
				key = "token"
			}
			s.credentials = append(s.credentials, [3]string{o.GetNamespace(), name, key})
		case "CloudflareZeroTrustTemplate":
			templates++
		case "Service":
			if t, _, _ := unstructured.NestedString(o.Object, "spec", "type"); t == "LoadBalancer" {
				s.lbServices = append(s.lbServices, [2]string{o.GetNamespace(), o.GetName()})
			}
		case "HTTPRoute":
			if annotation(o, "enabled") != "true" {
				continue
			}
			r := &Route{Namespace: o.GetNamespace(), Name: o.GetName(), Hostname: annotation(o, "hostname"), obj: o}
			r.DNSOnly = annotation(o, "dnsOnly.enabled") == "true"
			r.Access = annotation(o, "access.enabled", "accessApp") == "true"
			r.Token = annotation(o, "serviceToken.enabled", "serviceToken") == "true"
			r.Template = annotation(o, "template")
			if e := annotation(o, "access.allowEmails", "allowEmails"); e != "" {
				r.Emails = splitList(e)
			}
			s.routes = append(s.routes, r)
			if z := zoneOf(r.Hostname); z != "" && !zoneSeen[z] {
				zoneSeen[z] = true
				s.zones = append(s.zones, z)
			}
		}
		s.objects = append(s.objects, o)
	}
	sort.SliceStable(s.objects, func(i, j int) bool { return installRank(s.objects[i]) < installRank(s.objects[j]) })

	var missing []string
	if tenants == 0 {
		missing = append(missing, "a CloudflareZeroTrustTenant")
	}
	if templates == 0 {
		missing = append(missing, "a CloudflareZeroTrustTemplate")
	}
	has := func(f func(*Route) bool) bool {
		for _, r := range s.routes {
			if f(r) {
				return true
			}
		}
		return false
	}
	for _, want := range []struct {
		what string
		f    func(*Route) bool
	}{
		{"a plain HTTPRoute (tunnel + CNAME only)", (*Route).Plain},
		{"an HTTPRoute with Access for listed emails", func(r *Route) bool { return r.Access && len(r.Emails) > 0 }},
		{"an HTTPRoute with a service token", func(r *Route) bool { return r.Token }},
		{"a DNS-only HTTPRoute", func(r *Route) bool { return r.DNSOnly }},
	} {
		if !has(want.f) {
			missing = append(missing, want.what)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s lacks %s: %w", dir, strings.Join(missing, "; "), errMissing)
	}
	d.samples = s
	d.sum.Routes = s.routes
	for _, r := range s.routes {
		d.say("HTTPRoute %-28s %-28s %s", r.Key(), r.Hostname, d.st.dim(r.Kind()))
	}
	return nil
}

// installRank orders kinds so that each object's dependencies come first.
func installRank(o *unstructured.Unstructured) int {
	switch o.GetKind() {
	case "Namespace":
		return 0
	case "Secret", "ConfigMap", "Service":
		return 1
	case "CloudflareZeroTrustOperatorConfig", "CloudflareZeroTrustTemplate":
		return 2
	case "CloudflareZeroTrustTenant":
		return 3
	case "HTTPRoute":
		return 5
	}
	return 4
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// zoneOf guesses the zone of a hostname: its last two labels, or three
// under a two-letter country code's second level (example.co.uk).
func zoneOf(host string) string {
	labels := strings.Split(strings.TrimPrefix(host, "*."), ".")
	if len(labels) < 2 {
		return ""
	}
	n := 2
	if len(labels) >= 3 && len(labels[len(labels)-1]) == 2 {
		switch labels[len(labels)-2] {
		case "co", "com", "org", "net", "ac", "gov":
			n = 3
		}
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

func (d *demo) installSamples(ctx context.Context) error {
	// The manager reads its own Deployment (OPERATOR_DEPLOYMENT) to apply
	// the OperatorConfig and to copy its pod template to the workers.
	manager, err := readObjectsFile(filepath.Join(d.opts.Root, "deploy", "manager.yaml"))
	if err != nil {
		return fmt.Errorf("deploy/manager.yaml: %w", err)
	}
	for _, o := range manager {
		if o.GetNamespace() == "" {
			o.SetNamespace(d.h.Namespace)
		}
		if err := d.h.Cluster.ApplyYAML(ctx, toYAML(o)); err != nil {
			return err
		}
		d.say("%s %s (deploy/manager.yaml; no pod runs here: the demo runs each tier as a process)", o.GetKind(), objectKey(o))
	}
	for _, ns := range d.samples.namespaces {
		if err := d.h.EnsureNamespace(ctx, ns); err != nil {
			return err
		}
	}
	creds := map[string]bool{}
	for _, c := range d.samples.credentials {
		creds[c[0]+"/"+c[1]] = true
		if err := d.writeCredential(ctx, c[0], c[1], c[2]); err != nil {
			return err
		}
		d.say("Secret %s/%s: the simulator's API token under %q (the token never appears in any output)", c[0], c[1], c[2])
	}
	for _, o := range d.samples.objects {
		if o.GetKind() == "Secret" && creds[o.GetNamespace()+"/"+o.GetName()] {
			continue // replaced by the simulator's token above
		}
		if err := d.h.Cluster.ApplyYAML(ctx, toYAML(o)); err != nil {
			return err
		}
		d.say("%s %s", o.GetKind(), objectKey(o))
	}
	for i, svc := range d.samples.lbServices {
		ip := fmt.Sprintf("198.51.100.%d", 10+i)
		if err := setLoadBalancerIP(ctx, d.dyn, svc[0], svc[1], ip); err != nil {
			return err
		}
		d.say("Service %s/%s: load balancer IP %s (set by the demo: no cloud controller here)", svc[0], svc[1], ip)
	}
	return nil
}

// writeCredential creates or replaces the API-token Secret of a tenant.
func (d *demo) writeCredential(ctx context.Context, ns, name, key string) error {
	sec := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{key: d.sim.Token},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sec)
	if err != nil {
		return err
	}
	return d.h.Cluster.ApplyYAML(ctx, toYAML(&unstructured.Unstructured{Object: obj}))
}

func objectKey(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}
