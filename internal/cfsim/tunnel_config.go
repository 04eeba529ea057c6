package cfsim

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// codeTunnelConfigInvalid answers configurations that cloudflared could not
// run. Cloudflare prefixes these messages with "Bad Configuration: ".
const codeTunnelConfigInvalid = 1055

type tunnelConfigRec struct {
	config    map[string]any
	version   int
	createdAt string
}

// TunnelConfiguration is the result of GET/PUT .../cfd_tunnel/{id}/configurations.
// Config is null until the tunnel is first configured remotely.
type TunnelConfiguration struct {
	TunnelID  string         `json:"tunnel_id"`
	AccountID string         `json:"account_id"`
	Version   int            `json:"version"`
	Config    map[string]any `json:"config"`
	Source    string         `json:"source"`
	CreatedAt string         `json:"created_at"`
}

func (t *tunnelRec) configView() TunnelConfiguration {
	v := TunnelConfiguration{TunnelID: t.t.ID, AccountID: t.account, Source: t.t.ConfigSrc, CreatedAt: t.t.CreatedAt}
	if t.config != nil {
		v.Config, v.Version, v.CreatedAt = t.config.config, t.config.version, t.config.createdAt
	}
	return v
}

func (s *Server) getTunnelConfig(c *call) (any, error) {
	t, err := c.tunnel(true)
	if err != nil {
		return nil, err
	}
	return t.configView(), nil
}

// putTunnelConfig replaces the remote configuration after validating its
// ingress rules the way cloudflared would. Pushing a configuration makes the
// tunnel remotely managed.
func (s *Server) putTunnelConfig(c *call) (any, error) {
	t, err := c.tunnel(true)
	if err != nil {
		return nil, err
	}
	var in struct {
		Config map[string]any `json:"config"`
	}
	if err := c.decode(&in, badTunnelConfig); err != nil {
		return nil, err
	}
	if in.Config == nil {
		return nil, badTunnelConfig("config is required")
	}
	if err := validateIngress(in.Config["ingress"]); err != nil {
		return nil, err
	}
	if err := validateOriginRequest("config.originRequest", in.Config["originRequest"]); err != nil {
		return nil, err
	}
	version := 1
	if t.config != nil {
		version = t.config.version + 1
	}
	t.config = &tunnelConfigRec{config: in.Config, version: version, createdAt: s.stampNow()}
	t.t.ConfigSrc, t.t.RemoteConfig = "cloudflare", true
	return t.configView(), nil
}

func badTunnelConfig(msg string) *apiError {
	return newAPIError(http.StatusBadRequest, codeTunnelConfigInvalid, "Bad Configuration: "+msg)
}

func validateIngress(raw any) *apiError {
	rules, ok := raw.([]any)
	if !ok || len(rules) == 0 {
		return badTunnelConfig("config.ingress must be a non-empty list of rules")
	}
	for i, r := range rules {
		rule, ok := r.(map[string]any)
		if !ok {
			return badTunnelConfig(fmt.Sprintf("ingress rule #%d is not an object", i+1))
		}
		host, err := optionalString(rule, "hostname", i)
		if err != nil {
			return err
		}
		path, err := optionalString(rule, "path", i)
		if err != nil {
			return err
		}
		service, err := optionalString(rule, "service", i)
		if err != nil {
			return err
		}
		last := i == len(rules)-1
		switch {
		case last && (host != "" || path != ""):
			return badTunnelConfig("The last ingress rule must match all URLs (i.e. it should not have a hostname or path filter)")
		case !last && host == "" && path == "":
			return badTunnelConfig(fmt.Sprintf("Rule #%d matches all URLs, so every rule after it is unreachable; only the last rule may omit hostname and path", i+1))
		}
		if err := validateIngressHostname(host, i); err != nil {
			return err
		}
		if err := validateService(service, i); err != nil {
			return err
		}
		if err := validateOriginRequest(fmt.Sprintf("ingress rule #%d originRequest", i+1), rule["originRequest"]); err != nil {
			return err
		}
	}
	return nil
}

func optionalString(rule map[string]any, key string, i int) (string, *apiError) {
	v, present := rule[key]
	if !present || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badTunnelConfig(fmt.Sprintf("ingress rule #%d: %s must be a string", i+1, key))
	}
	return s, nil
}

func validateIngressHostname(host string, i int) *apiError {
	if host == "" {
		return nil
	}
	if strings.Contains(host, ":") {
		return badTunnelConfig(fmt.Sprintf("ingress rule #%d: hostname %q cannot contain a port", i+1, host))
	}
	if n := strings.Count(host, "*"); n > 1 || n == 1 && !strings.HasPrefix(host, "*.") {
		return badTunnelConfig(fmt.Sprintf("ingress rule #%d: hostname %q may only use one wildcard, as its first label (e.g. *.example.com)", i+1, host))
	}
	return nil
}

// originSchemes are the service URL schemes cloudflared can proxy to.
var originSchemes = map[string]bool{
	"http": true, "https": true, "unix": true, "unix+tls": true,
	"tcp": true, "ssh": true, "rdp": true, "smb": true, "ws": true, "wss": true,
}

func validateService(service string, i int) *apiError {
	bad := func(why string) *apiError {
		return badTunnelConfig(fmt.Sprintf("ingress rule #%d: service %q %s", i+1, service, why))
	}
	switch {
	case service == "":
		return badTunnelConfig(fmt.Sprintf("ingress rule #%d: service is required", i+1))
	case service == "hello_world" || service == "bastion" || service == "socks5":
		return nil
	case strings.HasPrefix(service, "http_status:"):
		code, err := strconv.Atoi(strings.TrimPrefix(service, "http_status:"))
		if err != nil || code < 100 || code > 599 {
			return bad("is not a valid http_status:<code>")
		}
		return nil
	}
	u, err := url.Parse(service)
	if err != nil || !originSchemes[u.Scheme] {
		return bad("is not a supported origin (use http://, https://, unix:, tcp://, ssh://, rdp://, smb:// or http_status:<code>)")
	}
	if !strings.HasPrefix(u.Scheme, "unix") && u.Host == "" {
		return bad("has no host")
	}
	return nil
}

// originRequestTypes lists the originRequest settings whose JSON type the
// simulator checks; cloudflared ignores settings it does not know.
var originRequestTypes = map[string]string{
	"connectTimeout": "number", "tlsTimeout": "number", "tcpKeepAlive": "number",
	"keepAliveTimeout": "number", "keepAliveConnections": "number",
	"noHappyEyeballs": "bool", "noTLSVerify": "bool", "disableChunkedEncoding": "bool",
	"http2Origin": "bool", "matchSNItoHost": "bool",
	"httpHostHeader": "string", "originServerName": "string", "caPool": "string", "proxyType": "string",
	"access": "object",
}

func validateOriginRequest(where string, raw any) *apiError {
	if raw == nil {
		return nil
	}
	or, ok := raw.(map[string]any)
	if !ok {
		return badTunnelConfig(where + " must be an object")
	}
	for key, want := range originRequestTypes {
		v, present := or[key]
		if !present {
			continue
		}
		var ok bool
		switch want {
		case "number":
			_, ok = v.(float64)
		case "bool":
			_, ok = v.(bool)
		case "string":
			_, ok = v.(string)
		case "object":
			_, ok = v.(map[string]any)
		}
		if !ok {
			return badTunnelConfig(fmt.Sprintf("%s.%s must be a %s", where, key, want))
		}
	}
	return nil
}
