package modules

import "sync/atomic"

// RequestObserver is told about outbound requests modules make: kind is
// "kubernetes" or "http", code the HTTP status (0 for a transport error).
// The operator runtime installs one to feed its metrics.
//
// Requests sent through a client-go REST client are counted by the runtime
// itself (client-go's request-result hook), so modules call ObserveRequest
// with kind "kubernetes" only for requests that bypass client-go; they call
// it for every HTTP request of their own (uri, the Cloudflare API).
type RequestObserver func(kind string, code int)

var observer atomic.Pointer[RequestObserver]

// SetRequestObserver installs fn (nil removes it).
func SetRequestObserver(fn RequestObserver) {
	if fn == nil {
		observer.Store(nil)
		return
	}
	observer.Store(&fn)
}

// ObserveRequest reports one outbound request to the installed observer.
func ObserveRequest(kind string, code int) {
	if fn := observer.Load(); fn != nil {
		(*fn)(kind, code)
	}
}
