package sdk

import (
	"strings"
	"time"
)

// The condition types, reasons and messages ansible-operator writes when
// it manages a resource's status.
const (
	CondRunning    = "Running"
	CondSuccessful = "Successful"
	CondFailure    = "Failure"

	reasonRunning    = "Running"
	reasonSuccessful = "Successful"
	reasonFailed     = "Failed"

	msgRunning    = "Running reconciliation"
	msgAwaiting   = "Awaiting next reconciliation"
	msgSuccessful = "Last reconciliation succeeded"
)

// completionLayout is how ansibleResult.completion is written: the
// playbook_on_stats event's UTC time, fraction trimmed.
const completionLayout = "2006-01-02T15:04:05.99999999+00:00"

// AnsibleResult is a condition's ansibleResult: the recap counts of
// localhost and when the run completed.
type AnsibleResult struct {
	OK, Changed, Skipped, Failures int
	Completion                     time.Time
}

func (r *AnsibleResult) toMap() map[string]any {
	return map[string]any{
		"ok": int64(r.OK), "changed": int64(r.Changed), "skipped": int64(r.Skipped), "failures": int64(r.Failures),
		"completion": r.Completion.UTC().Format(completionLayout),
	}
}

func ansibleResultFromMap(m map[string]any) *AnsibleResult {
	r := &AnsibleResult{}
	num := func(k string) int {
		switch n := m[k].(type) {
		case int64:
			return int(n)
		case float64:
			return int(n)
		}
		return 0
	}
	r.OK, r.Changed, r.Skipped, r.Failures = num("ok"), num("changed"), num("skipped"), num("failures")
	if s, ok := m["completion"].(string); ok {
		r.Completion, _ = time.Parse("2006-01-02T15:04:05.999999999+00:00", s)
	}
	return r
}

// Condition is one of status.conditions.
type Condition struct {
	Type, Status, Reason, Message string
	LastTransitionTime            time.Time
	AnsibleResult                 *AnsibleResult
}

func (c Condition) toMap() map[string]any {
	m := map[string]any{
		"type": c.Type, "status": c.Status, "reason": c.Reason, "message": c.Message,
		"lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339),
	}
	if c.AnsibleResult != nil {
		m["ansibleResult"] = c.AnsibleResult.toMap()
	}
	return m
}

// conditionFromMap reads a condition with ansible-operator's fallbacks: a
// missing type is Running, a missing status True, an unreadable
// lastTransitionTime now.
func conditionFromMap(m map[string]any, now time.Time) Condition {
	str := func(k, def string) string {
		if s, ok := m[k].(string); ok {
			return s
		}
		return def
	}
	c := Condition{Type: str("type", CondRunning), Status: str("status", "True"), Reason: str("reason", ""), Message: str("message", ""),
		LastTransitionTime: now}
	if ar, ok := m["ansibleResult"].(map[string]any); ok {
		c.AnsibleResult = ansibleResultFromMap(ar)
	}
	if s, ok := m["lastTransitionTime"].(string); ok {
		if t, err := time.Parse("2006-01-02T15:04:05Z", s); err == nil {
			c.LastTransitionTime = t
		}
	}
	return c
}

// Status is a resource's status: its conditions and everything else the
// roles wrote (kept as it is).
type Status struct {
	Conditions []Condition
	Custom     map[string]any
}

// StatusOf reads obj's status; entries of conditions that are not
// mappings are dropped, as ansible-operator drops them.
func StatusOf(obj map[string]any, now time.Time) *Status {
	st := &Status{Custom: map[string]any{}}
	m, _ := obj["status"].(map[string]any)
	for k, v := range m {
		if k != "conditions" {
			st.Custom[k] = v
		}
	}
	list, _ := m["conditions"].([]any)
	for _, e := range list {
		if cm, ok := e.(map[string]any); ok {
			st.Conditions = append(st.Conditions, conditionFromMap(cm, now))
		}
	}
	return st
}

// Map is the status as written back: the custom fields plus conditions.
func (s *Status) Map() map[string]any {
	out := make(map[string]any, len(s.Custom)+1)
	for k, v := range s.Custom {
		out[k] = v
	}
	conds := make([]any, 0, len(s.Conditions))
	for _, c := range s.Conditions {
		conds = append(conds, c.toMap())
	}
	out["conditions"] = conds
	return out
}

// Get returns a copy of the condition of type t, or nil.
func (s *Status) Get(t string) *Condition {
	for _, c := range s.Conditions {
		if c.Type == t {
			return &c
		}
	}
	return nil
}

// Set puts c in place of the condition of its type, moving it last. Like
// ansible-operator it leaves an existing condition alone when its status
// and reason are unchanged (except Failure, always replaced), and keeps
// the lastTransitionTime when only the reason or result changed.
func (s *Status) Set(c Condition) {
	cur := s.Get(c.Type)
	if cur != nil && c.Type != CondFailure && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	kept := s.Conditions[:0:0]
	for _, x := range s.Conditions {
		if x.Type != c.Type {
			kept = append(kept, x)
		}
	}
	s.Conditions = append(kept, c)
}

// setStatusOf sets the status of an existing condition of type t, if any.
func (s *Status) setStatusOf(t, status string) {
	if c := s.Get(t); c != nil {
		c.Status = status
		s.Set(*c)
	}
}

// MarkRunning is the status at the start of a reconcile: Successful (if
// present) goes False, Running True with reason Running.
func (s *Status) MarkRunning(now time.Time) {
	s.setStatusOf(CondSuccessful, "False")
	s.Set(Condition{Type: CondRunning, Status: "True", Reason: reasonRunning, Message: msgRunning, LastTransitionTime: now})
}

// MarkDone is the status after a run: on success Running True (reason
// Successful, with the result), Successful True and Failure False; on
// failure Running False, Failure True with the result and the failed
// tasks' messages, Successful False.
func (s *Status) MarkDone(now time.Time, res *AnsibleResult, failures []string) {
	if len(failures) == 0 {
		s.Set(Condition{Type: CondRunning, Status: "True", Reason: reasonSuccessful, Message: msgAwaiting, AnsibleResult: res, LastTransitionTime: now})
		s.Set(Condition{Type: CondSuccessful, Status: "True", Reason: reasonSuccessful, Message: msgSuccessful, LastTransitionTime: now})
		s.Set(Condition{Type: CondFailure, Status: "False", LastTransitionTime: now})
		return
	}
	s.setStatusOf(CondRunning, "False")
	s.Set(Condition{Type: CondFailure, Status: "True", Reason: reasonFailed, Message: strings.Join(failures, "\n"), AnsibleResult: res, LastTransitionTime: now})
	s.Set(Condition{Type: CondSuccessful, Status: "False", LastTransitionTime: now})
}

// MarkError is the status when a reconcile could not run (a bad
// annotation, the runner failing to start): Running and Successful go
// False, Failure True with msg.
func (s *Status) MarkError(now time.Time, msg string) {
	s.setStatusOf(CondRunning, "False")
	s.setStatusOf(CondSuccessful, "False")
	s.Set(Condition{Type: CondFailure, Status: "True", Reason: reasonFailed, Message: msg, LastTransitionTime: now})
}
