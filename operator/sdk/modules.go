package sdk

import (
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ModuleEntries registers the operator_sdk.util modules that talk to the
// operator itself rather than to Kubernetes: osdk_metric (user metrics on
// the operator's /metrics, which ansible-operator receives on its
// localhost:5050 endpoint) and requeue_after (the next reconcile of the
// object). k8s_status lives with the Kubernetes modules.
func ModuleEntries(m *Metrics) []module.Entry {
	return []module.Entry{
		{FQCN: "operator_sdk.util.osdk_metric", Module: module.Func(func(req *module.Request) (*value.Dict, error) {
			return osdkMetric(m, req), nil
		})},
		{FQCN: "operator_sdk.util.requeue_after", Flags: module.Requeues, Module: module.Func(requeueAfter)},
	}
}

var osdkMetricSpec = &argspec.Spec{Options: []argspec.Option{
	{Name: "name", Type: argspec.Str, Required: true},
	{Name: "description", Type: argspec.Str, Required: true},
	{Name: "counter", Type: argspec.Dict},
	{Name: "gauge", Type: argspec.Dict},
	{Name: "histogram", Type: argspec.Dict},
	{Name: "summary", Type: argspec.Dict},
}}

func osdkMetric(m *Metrics, req *module.Request) *value.Dict {
	v := osdkMetricSpec.Validate(req.Args)
	if msg := v.Message(req.LoadName()); msg != "" {
		return value.DictOf("failed", true, "changed", false, "msg", msg)
	}
	p := v.P()
	if err := m.UserMetric(p.Str("name"), p.Str("description"), req.Args); err != nil {
		return value.DictOf("failed", true, "changed", false, "msg", err.Error())
	}
	return value.DictOf("changed", false)
}

var requeueSpec = &argspec.Spec{Options: []argspec.Option{{Name: "period", Type: argspec.Str, Required: true}}}

// requeueAfter validates its period (a Go duration such as "30s") and
// returns it; the reconciler reads it from the task result.
func requeueAfter(req *module.Request) (*value.Dict, error) {
	v := requeueSpec.Validate(req.Args)
	if msg := v.Message(req.LoadName()); msg != "" {
		return value.DictOf("failed", true, "changed", false, "msg", msg), nil
	}
	period := v.P().Str("period")
	if _, err := time.ParseDuration(period); err != nil {
		return value.DictOf("failed", true, "changed", false, "msg", "invalid period "+period+": "+err.Error()), nil
	}
	return value.DictOf("changed", false, "period", period), nil
}
