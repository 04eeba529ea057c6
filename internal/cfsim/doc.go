// Package cfsim is an in-memory simulator of the parts of Cloudflare's v4 REST
// API that cfzt-runner's Ansible roles call: zones, Cloudflare Tunnels and
// their remote configuration, DNS records, and the Zero Trust Access objects
// (applications, app-scoped and reusable policies, groups, service tokens and
// identity providers).
//
// Cloudflare cannot be reached from development machines or CI, so the roles
// and the Go code are tested against this simulator instead. It therefore
// aims to be faithful where a client can tell the difference: paths, methods,
// query filters, the {success, errors, messages, result, result_info}
// envelope, HTTP statuses, Cloudflare's error codes, ID formats, bearer-token
// scoping and rate limiting. Where Cloudflare's exact behaviour could not be
// confirmed the simulator picks the stricter reading and README.md says so.
//
// A Server is an http.Handler. The API lives under /client/v4 (APIPrefix);
// test controls (fault injection, request log, state dump, reset) live under
// /__admin/ (AdminPrefix) and are also available as Go methods.
package cfsim
