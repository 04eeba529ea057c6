// Package sdktest checks the cfsim simulator against Cloudflare's official
// Go SDK (github.com/cloudflare/cloudflare-go/v6). It is a separate module so
// the main module does not depend on the SDK: if the SDK can drive the
// simulator, the simulator's paths, query parameters and JSON shapes match
// what Cloudflare's own generated client expects.
package sdktest
