package urls

import "sync/atomic"

// Observer is told about each outbound request: kind is "kubernetes" or
// "http", code the HTTP status (0 for a transport failure or a file).
// The operator runtime installs one to feed its metrics.
//
// Requests sent through a client-go REST client are counted by the
// runtime itself (client-go's request-result hook); Open reports every
// request it sends, and other code reports with Observe the requests
// that bypass both.
type Observer func(kind string, code int)

var observer atomic.Pointer[Observer]

// SetObserver installs fn (nil removes it).
func SetObserver(fn Observer) {
	if fn == nil {
		observer.Store(nil)
		return
	}
	observer.Store(&fn)
}

// Observe reports one outbound request of kind to the installed observer.
func Observe(kind string, code int) {
	if fn := observer.Load(); fn != nil {
		(*fn)(kind, code)
	}
}

func observe(code int) { Observe("http", code) }
