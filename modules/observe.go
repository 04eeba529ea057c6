package modules

import "sync/atomic"

// RequestObserver is told about every outbound request a module makes:
// kind is "kubernetes" or "http", code the HTTP status (0 for a transport
// error). The runtime installs one to feed its metrics.
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
