package cfsim

import (
	"net/http"
	"strings"
)

type policyRec struct {
	account string
	// app owns an app-scoped (legacy) policy; it is empty for reusable ones.
	app string
	// precedence orders an app-scoped policy within its application.
	// Reusable policies get theirs from each application's link.
	precedence int
	p          AccessPolicy
}

// AccessPolicy is an Access policy as the v4 API returns it. Precedence is
// only meaningful in an application's context; AppCount only on the
// reusable-policy endpoints.
type AccessPolicy struct {
	ID                           string           `json:"id"`
	Name                         string           `json:"name"`
	Decision                     string           `json:"decision"`
	Include                      []map[string]any `json:"include"`
	Exclude                      []map[string]any `json:"exclude"`
	Require                      []map[string]any `json:"require"`
	Precedence                   int              `json:"precedence,omitempty"`
	Reusable                     bool             `json:"reusable"`
	AppCount                     *int             `json:"app_count,omitempty"`
	SessionDuration              string           `json:"session_duration,omitempty"`
	ApprovalRequired             bool             `json:"approval_required"`
	ApprovalGroups               []any            `json:"approval_groups"`
	IsolationRequired            bool             `json:"isolation_required"`
	PurposeJustificationRequired bool             `json:"purpose_justification_required"`
	PurposeJustificationPrompt   string           `json:"purpose_justification_prompt,omitempty"`
	CreatedAt                    string           `json:"created_at"`
	UpdatedAt                    string           `json:"updated_at"`
}

type policyInput struct {
	Name                         *string `json:"name"`
	Decision                     *string `json:"decision"`
	Include                      *[]any  `json:"include"`
	Exclude                      *[]any  `json:"exclude"`
	Require                      *[]any  `json:"require"`
	Precedence                   *int    `json:"precedence"`
	SessionDuration              *string `json:"session_duration"`
	ApprovalRequired             *bool   `json:"approval_required"`
	ApprovalGroups               *[]any  `json:"approval_groups"`
	IsolationRequired            *bool   `json:"isolation_required"`
	PurposeJustificationRequired *bool   `json:"purpose_justification_required"`
	PurposeJustificationPrompt   *string `json:"purpose_justification_prompt"`
}

func (s *Server) registerAccessPolicyRoutes() {
	app := "/accounts/{account}/access/apps/{app}/policies"
	s.api.add(http.MethodGet, app, s.listAppPolicies)
	s.api.add(http.MethodPost, app, s.createAppPolicy)
	s.api.add(http.MethodGet, app+"/{policy}", s.getAppPolicy)
	s.api.add(http.MethodPut, app+"/{policy}", s.updateAppPolicy)
	s.api.add(http.MethodDelete, app+"/{policy}", s.deleteAppPolicy)

	reusable := "/accounts/{account}/access/policies"
	s.api.add(http.MethodGet, reusable, s.listReusablePolicies)
	s.api.add(http.MethodPost, reusable, s.createReusablePolicy)
	s.api.add(http.MethodGet, reusable+"/{policy}", s.getReusablePolicy)
	s.api.add(http.MethodPut, reusable+"/{policy}", s.updateReusablePolicy)
	s.api.add(http.MethodDelete, reusable+"/{policy}", s.deleteReusablePolicy)
}

// buildPolicy validates a create or full-replace body on top of base.
func (s *Server) buildPolicy(account string, in policyInput, base AccessPolicy) (AccessPolicy, *apiError) {
	p := base
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return p, accessInvalid("name is required")
	}
	p.Name = strings.TrimSpace(*in.Name)
	if in.Decision == nil || !policyDecisions[*in.Decision] {
		return p, accessInvalid("decision must be one of allow, deny, non_identity, bypass")
	}
	p.Decision = *in.Decision
	var err *apiError
	if p.Include, err = validateRules(s.st, account, "include", in.Include, true); err != nil {
		return p, err
	}
	if p.Exclude, err = validateRules(s.st, account, "exclude", in.Exclude, false); err != nil {
		return p, err
	}
	if p.Require, err = validateRules(s.st, account, "require", in.Require, false); err != nil {
		return p, err
	}
	if p.Decision == "non_identity" {
		if err := rejectIdentityRules(p.Include, p.Require); err != nil {
			return p, err
		}
	}
	p.SessionDuration = ""
	if in.SessionDuration != nil && *in.SessionDuration != "" {
		if !validDuration(*in.SessionDuration) {
			return p, accessInvalid("session_duration must be a duration such as 24h or 30m")
		}
		p.SessionDuration = *in.SessionDuration
	}
	p.ApprovalRequired = in.ApprovalRequired != nil && *in.ApprovalRequired
	p.ApprovalGroups = []any{}
	if in.ApprovalGroups != nil {
		p.ApprovalGroups = append(p.ApprovalGroups, (*in.ApprovalGroups)...)
	}
	p.IsolationRequired = in.IsolationRequired != nil && *in.IsolationRequired
	p.PurposeJustificationRequired = in.PurposeJustificationRequired != nil && *in.PurposeJustificationRequired
	p.PurposeJustificationPrompt = ""
	if in.PurposeJustificationPrompt != nil {
		p.PurposeJustificationPrompt = *in.PurposeJustificationPrompt
	}
	p.UpdatedAt = s.stampNow()
	return p, nil
}

// policyView renders rec; precedence > 0 places it in an application.
func (s *Server) policyView(rec *policyRec, precedence int, withAppCount bool) AccessPolicy {
	v := rec.p
	v.Reusable = rec.app == ""
	v.Precedence = precedence
	if withAppCount {
		n := s.appCount(rec.p.ID)
		v.AppCount = &n
	}
	return v
}

// appCount is how many applications link the reusable policy id.
func (s *Server) appCount(id string) int {
	n := 0
	for _, a := range s.st.apps {
		for _, l := range a.links {
			if l.id == id {
				n++
			}
		}
	}
	return n
}

// appPolicies are the policies that apply to app: its own app-scoped ones
// and the reusable ones it links, ordered by precedence.
func (s *Server) appPolicies(app *appRec) []AccessPolicy {
	var out []AccessPolicy
	for _, p := range s.st.policies {
		if p.app == app.a.ID {
			out = append(out, s.policyView(p, p.precedence, false))
		}
	}
	for _, l := range app.links {
		if p := find(s.st.policies, func(p *policyRec) bool { return p.p.ID == l.id }); p != nil {
			out = append(out, s.policyView(p, l.precedence, false))
		}
	}
	if out == nil {
		out = []AccessPolicy{}
	}
	sortPolicies(out)
	return out
}

// precedenceTaken reports whether another policy of app already uses prec.
func (s *Server) precedenceTaken(app *appRec, prec int, exceptID string) bool {
	for _, p := range s.appPolicies(app) {
		if p.Precedence == prec && p.ID != exceptID {
			return true
		}
	}
	return false
}

func (s *Server) listAppPolicies(c *call) (any, error) {
	app, err := c.app()
	if err != nil {
		return nil, err
	}
	return paginate(c, s.appPolicies(app), pagesAccess), nil
}

// createAppPolicy creates a policy owned by one application. Without a
// precedence it goes after the application's existing policies.
func (s *Server) createAppPolicy(c *call) (any, error) {
	app, err := c.app()
	if err != nil {
		return nil, err
	}
	var in policyInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	now := s.stampNow()
	p, apiErr := s.buildPolicy(app.account, in, AccessPolicy{ID: s.ids.UUID(), CreatedAt: now})
	if apiErr != nil {
		return nil, apiErr
	}
	prec, apiErr := s.choosePrecedence(app, in.Precedence, p.ID)
	if apiErr != nil {
		return nil, apiErr
	}
	rec := &policyRec{account: app.account, app: app.a.ID, precedence: prec, p: p}
	s.st.policies = append(s.st.policies, rec)
	app.a.UpdatedAt = now
	c.created()
	return s.policyView(rec, prec, false), nil
}

func (s *Server) choosePrecedence(app *appRec, want *int, selfID string) (int, *apiError) {
	if want == nil {
		next := 1
		for _, p := range s.appPolicies(app) {
			if p.ID != selfID && p.Precedence >= next {
				next = p.Precedence + 1
			}
		}
		return next, nil
	}
	if *want < 1 {
		return 0, accessInvalid("precedence must be a positive integer")
	}
	if s.precedenceTaken(app, *want, selfID) {
		return 0, accessInvalid("precedence must be unique for each policy within an application")
	}
	return *want, nil
}

// appPolicy finds {policy} among the policies that apply to {app}.
func (c *call) appPolicy() (*appRec, *policyRec, error) {
	app, err := c.app()
	if err != nil {
		return nil, nil, err
	}
	id := strings.ToLower(c.param("policy"))
	p := find(c.s.st.policies, func(p *policyRec) bool {
		if p.p.ID != id || p.account != app.account {
			return false
		}
		return p.app == app.a.ID || p.app == "" && app.linkPrecedence(id) > 0
	})
	if p == nil {
		return nil, nil, errAccessNotFound()
	}
	return app, p, nil
}

func (s *Server) getAppPolicy(c *call) (any, error) {
	app, p, err := c.appPolicy()
	if err != nil {
		return nil, err
	}
	prec := p.precedence
	if p.app == "" {
		prec = app.linkPrecedence(p.p.ID)
	}
	return s.policyView(p, prec, false), nil
}

// updateAppPolicy replaces an app-scoped policy. Reusable policies must be
// changed through /access/policies, as Cloudflare requires.
func (s *Server) updateAppPolicy(c *call) (any, error) {
	app, p, err := c.appPolicy()
	if err != nil {
		return nil, err
	}
	if p.app == "" {
		return nil, accessInvalid("reusable policies must be updated with PUT /accounts/{account_id}/access/policies/{policy_id}")
	}
	var in policyInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	next, apiErr := s.buildPolicy(app.account, in, p.p)
	if apiErr != nil {
		return nil, apiErr
	}
	prec := p.precedence
	if in.Precedence != nil {
		if prec, apiErr = s.choosePrecedence(app, in.Precedence, p.p.ID); apiErr != nil {
			return nil, apiErr
		}
	}
	p.p, p.precedence = next, prec
	app.a.UpdatedAt = next.UpdatedAt
	return s.policyView(p, prec, false), nil
}

func (s *Server) deleteAppPolicy(c *call) (any, error) {
	app, p, err := c.appPolicy()
	if err != nil {
		return nil, err
	}
	if p.app == "" {
		return nil, accessInvalid("reusable policies are removed from an application by updating its policies list")
	}
	s.st.policies = remove(s.st.policies, p)
	app.a.UpdatedAt = s.stampNow()
	return map[string]string{"id": p.p.ID}, nil
}

func (c *call) reusablePolicy() (*policyRec, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	id := strings.ToLower(c.param("policy"))
	p := find(c.s.st.policies, func(p *policyRec) bool { return p.account == a.id && p.app == "" && p.p.ID == id })
	if p == nil {
		return nil, errAccessNotFound()
	}
	return p, nil
}

func (s *Server) listReusablePolicies(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var out []AccessPolicy
	for _, p := range s.st.policies {
		if p.account == a.id && p.app == "" {
			out = append(out, s.policyView(p, 0, true))
		}
	}
	return paginate(c, out, pagesAccess), nil
}

func (s *Server) createReusablePolicy(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var in policyInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	p, apiErr := s.buildPolicy(a.id, in, AccessPolicy{ID: s.ids.UUID(), CreatedAt: s.stampNow()})
	if apiErr != nil {
		return nil, apiErr
	}
	rec := &policyRec{account: a.id, p: p}
	s.st.policies = append(s.st.policies, rec)
	c.created()
	return s.policyView(rec, 0, true), nil
}

func (s *Server) getReusablePolicy(c *call) (any, error) {
	p, err := c.reusablePolicy()
	if err != nil {
		return nil, err
	}
	return s.policyView(p, 0, true), nil
}

func (s *Server) updateReusablePolicy(c *call) (any, error) {
	p, err := c.reusablePolicy()
	if err != nil {
		return nil, err
	}
	var in policyInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	next, apiErr := s.buildPolicy(p.account, in, p.p)
	if apiErr != nil {
		return nil, apiErr
	}
	p.p = next
	return s.policyView(p, 0, true), nil
}

// deleteReusablePolicy refuses while applications still link the policy,
// so a teardown must detach it first (Terraform's provider documents the
// same ordering constraint).
func (s *Server) deleteReusablePolicy(c *call) (any, error) {
	p, err := c.reusablePolicy()
	if err != nil {
		return nil, err
	}
	if n := s.appCount(p.p.ID); n > 0 {
		return nil, accessInvalid("policy is still used by applications; remove it from their policies first")
	}
	s.st.policies = remove(s.st.policies, p)
	return map[string]string{"id": p.p.ID}, nil
}
