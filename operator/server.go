package operator

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cfzt/cfzt-runner/operator/promtext"
)

// serve runs the health and metrics endpoints on addr until ctx ends:
// /healthz answers 200 while the process runs, /readyz 200 once ready()
// holds (503 before), /metrics the Prometheus text. The bound address is
// sent on bound (useful with port 0).
func serve(ctx context.Context, addr string, m *Metrics, ready func() bool, bound chan<- string) error {
	routes := HealthRoutes(ready)
	routes["/metrics"] = MetricsHandler(m.Gatherer())
	return Serve(ctx, addr, routes, bound)
}

// HealthRoutes are /healthz (200 while the process runs) and /readyz (200
// once ready() holds, 503 before).
func HealthRoutes(ready func() bool) map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"/healthz": func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte("ok\n"))
		},
		"/readyz": func(w http.ResponseWriter, _ *http.Request) {
			if !ready() {
				http.Error(w, "not ready", http.StatusServiceUnavailable)
				return
			}
			w.Write([]byte("ok\n"))
		},
	}
}

// MetricsHandler serves /metrics with client_golang's promhttp: the
// families of every registry, merged with the go_*, process_* and
// cfzt_build_info series (promtext.RuntimeGatherer), in name order, in the
// format the scraper negotiates (the text format by default, protobuf when
// Prometheus asks for it). A series that cannot be gathered, or that a
// later source repeats, is left out rather than failing the scrape.
func MetricsHandler(sources ...prometheus.Gatherer) http.HandlerFunc {
	// The runtime's registry comes first, so that its series win a clash.
	g := append(prometheus.Gatherers{promtext.RuntimeGatherer()}, sources...)
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP
}

// Serve runs an HTTP server with routes on addr until ctx ends. The bound
// address is sent on bound when not nil (useful with port 0).
func Serve(ctx context.Context, addr string, routes map[string]http.HandlerFunc, bound chan<- string) error {
	mux := http.NewServeMux()
	for path, h := range routes {
		mux.HandleFunc(path, h)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if bound != nil {
		bound <- ln.Addr().String()
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
