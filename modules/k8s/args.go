package k8s

import (
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// params are validated arguments: every spec'd name, nil when unset.
type params map[string]any

func (p params) str(k string) string {
	if v := p[k]; v != nil {
		return value.Str(v)
	}
	return ""
}

func (p params) bool(k string) bool { b, _ := p[k].(bool); return b }

func (p params) int(k string) int { i, _ := p[k].(int); return i }

func (p params) dict(k string) *value.Dict { d, _ := p[k].(*value.Dict); return d }

func (p params) strs(k string) []string {
	l, _ := p[k].([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, value.Str(e))
	}
	return out
}

type opt = argspec.Option

// authOptions are kubernetes.core's AUTH_ARG_SPEC.
func authOptions() []opt {
	return []opt{
		{Name: "kubeconfig", Type: argspec.Raw, NoLog: true},
		{Name: "context"},
		{Name: "host"},
		{Name: "api_key", NoLog: true},
		{Name: "username"},
		{Name: "password", NoLog: true},
		{Name: "validate_certs", Type: argspec.Bool, Aliases: []string{"verify_ssl"}},
		{Name: "ca_cert", Type: argspec.Path, Aliases: []string{"ssl_ca_cert"}},
		{Name: "client_cert", Type: argspec.Path, Aliases: []string{"cert_file"}},
		{Name: "client_key", Type: argspec.Path, Aliases: []string{"key_file"}},
		{Name: "proxy", Type: argspec.Str},
		{Name: "no_proxy", Type: argspec.Str},
		{Name: "proxy_headers", Type: argspec.Dict, Options: []opt{
			{Name: "proxy_basic_auth", Type: argspec.Str, NoLog: true},
			{Name: "basic_auth", Type: argspec.Str, NoLog: true},
			{Name: "user_agent", Type: argspec.Str},
		}},
		{Name: "persist_config", Type: argspec.Bool},
		{Name: "impersonate_user"},
		{Name: "impersonate_groups", Type: argspec.List, Elements: argspec.Str},
	}
}

// waitOptions are kubernetes.core's WAIT_ARG_SPEC.
func waitOptions() []opt {
	return []opt{
		{Name: "wait", Type: argspec.Bool, Default: false},
		{Name: "wait_sleep", Type: argspec.Int, Default: 5},
		{Name: "wait_timeout", Type: argspec.Int, Default: 120},
		{Name: "wait_condition", Type: argspec.Dict, Options: []opt{
			{Name: "type"},
			{Name: "status", Default: true, Choices: []any{true, false, "Unknown"}},
			{Name: "reason"},
		}},
	}
}

// nameOptions are kubernetes.core's NAME_ARG_SPEC.
func nameOptions() []opt {
	return []opt{
		{Name: "kind"},
		{Name: "name"},
		{Name: "namespace"},
		{Name: "api_version", Default: "v1", Aliases: []string{"api", "version"}},
	}
}

func concat(sets ...[]opt) []opt {
	var out []opt
	for _, s := range sets {
		out = append(out, s...)
	}
	return out
}

// validate checks args against spec as AnsibleModule does and returns
// the parameters, or the first error message in Ansible's words.
func validate(module string, spec *argspec.Spec, args *value.Dict) (params, string) {
	res := spec.Validate(args)
	if msg := res.Message(module); msg != "" {
		return nil, msg
	}
	return params(res.P().AsMap()), ""
}
