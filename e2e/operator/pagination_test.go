package operator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// post creates an object through the simulator's API and returns its ID.
func (w *world) post(path string, body map[string]any) string {
	w.t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(w.t, err)
	req, err := http.NewRequestWithContext(w.ctx, http.MethodPost, w.sim.Base+path, bytes.NewReader(raw))
	require.NoError(w.t, err)
	req.Header.Set("Authorization", "Bearer "+w.sim.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(w.t, err)
	defer resp.Body.Close()
	var env struct {
		Success bool `json:"success"`
		Result  struct {
			ID string `json:"id"`
		} `json:"result"`
	}
	require.NoError(w.t, json.NewDecoder(resp.Body).Decode(&env))
	require.True(w.t, env.Success, "POST %s", path)
	return env.Result.ID
}

// A zone with 250 DNS records and an account with 1,200 Access
// applications, 130 Access groups and 120 reusable policies: every lookup
// follows the pages, so the objects a route needs are found wherever they
// sit (an existing application and CNAME are adopted, a group and a policy
// on the second page are used by ID), and nothing is created twice.
func TestPaginationLargeAccount(t *testing.T) {
	w := newWorldWithSeed(t, "pages", func(s *cfsim.Seed) {
		for i := 0; i < 249; i++ {
			s.DNSRecords = append(s.DNSRecords, cfsim.SeedDNSRecord{Zone: "example.com", Type: "A",
				Name: fmt.Sprintf("host-%03d", i), Content: fmt.Sprintf("192.0.2.%d", i%250+1)})
		}
		for i := 0; i < 130; i++ {
			s.AccessGroups = append(s.AccessGroups, cfsim.SeedAccessGroup{Name: fmt.Sprintf("group-%03d", i), Account: e2e.AccountID})
		}
	})
	acct := "/accounts/" + w.sim.AccountID
	// The existing CNAME of the adopted hostname is the zone's 250th record.
	cname := w.post("/zones/"+w.sim.Zones["example.com"]+"/dns_records", map[string]any{
		"type": "CNAME", "name": "adopt.example.com", "content": w.sim.TunnelID + ".cfargotunnel.com", "proxied": true, "ttl": 1})
	var adopted string
	for i := 0; i < 1200; i++ {
		domain := fmt.Sprintf("app-%04d.example.com", i)
		if i == 1150 {
			domain = "adopt.example.com"
		}
		id := w.post(acct+"/access/apps", map[string]any{"name": domain, "domain": domain, "type": "self_hosted"})
		if i == 1150 {
			adopted = id
		}
	}
	for i := 0; i < 120; i++ {
		w.post(acct+"/access/policies", map[string]any{"name": fmt.Sprintf("policy-%03d", i), "decision": "allow",
			"include": []any{map[string]any{"everyone": map[string]any{}}}})
	}
	policyID := ""
	for _, p := range w.sim.State().AccessPolicies {
		if p.Policy.Name == "policy-110" {
			policyID = p.Policy.ID
		}
	}

	w.apply(route(w.ns, "adopt", map[string]string{"enabled": "true", "hostname": "adopt.example.com", "accessApp": "true", "allowEmails": "ops@example.com"}),
		route(w.ns, "grp", map[string]string{"enabled": "true", "hostname": "grp.example.com", "accessApp": "true", "allowGroups": "group-125"}),
		route(w.ns, "pol", map[string]string{"enabled": "true", "hostname": "pol.example.com", "access.enabled": "true", "access.existingPolicyNames": "policy-110"}),
		route(w.ns, "tok", map[string]string{"enabled": "true", "hostname": "tok.example.com", "serviceToken": "true"}))
	w.converge()

	st := w.sim.State()
	require.Len(t, st.AccessApplications, 1202, "1,200 existing applications, one adopted, two new")
	require.Len(t, st.DNSRecords, 253, "250 existing records, one adopted CNAME, three new")
	apps := w.apps("adopt.example.com")
	require.Len(t, apps, 1)
	require.Equal(t, adopted, apps[0].ID)
	require.Equal(t, adopted, w.annotations(w.ns, "adopt")[prefix+"accessAppId"])
	recs := w.dnsRecords("adopt.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, cname, recs[0].ID)

	grp := w.apps("grp.example.com")
	require.Len(t, grp, 1)
	pols := w.appPolicies(grp[0].ID)
	require.Len(t, pols, 1)
	require.Equal(t, []string{`group:{"id":"` + w.sim.Groups["group-125"] + `"}`}, includes(pols[0]))
	pol := w.apps("pol.example.com")
	require.Len(t, pol, 1)
	require.Equal(t, policyID, w.annotations(w.ns, "pol")[prefix+"accessPolicyIds"])

	// The lists that span pages were read to the end.
	pages := map[string]bool{}
	for _, r := range w.sim.Requests() {
		if strings.Contains(r.Query, "page=2") {
			pages[strings.TrimPrefix(r.Path, cfsim.APIPrefix+acct)] = true
		}
	}
	require.True(t, pages["/access/groups"], "the Access groups' second page was not read: %v", pages)
	require.True(t, pages["/access/policies"], "the reusable policies' second page was not read: %v", pages)

	// A steady state after all that makes no Cloudflare call.
	w.sim.ResetLog()
	require.False(t, w.cycle())
	require.Empty(t, w.sim.Requests())
}
