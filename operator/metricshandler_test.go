package operator

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// MetricsHandler serves the operator's families and the runtime's in the
// text format by default, and the protobuf format when the scraper asks
// for it as Prometheus does.
func TestMetricsHandlerFormats(t *testing.T) {
	m := NewMetrics()
	m.TaskResult("uri", "ok")
	srv := httptest.NewServer(MetricsHandler(m.Gatherer()))
	defer srv.Close()

	res, err := http.Get(srv.URL)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain; version=0.0.4"), res.Header.Get("Content-Type"))
	text := string(body)
	checkExposition(t, text)
	for _, want := range []string{`cfzt_task_results_total{module="uri",status="ok"} 1`, "cfzt_leader 0", "go_goroutines ",
		"process_resident_memory_bytes ", `cfzt_build_info{goversion="go`} {
		require.Contains(t, text, "\n"+want)
	}

	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Contains(t, res.Header.Get("Content-Type"), "application/vnd.google.protobuf")
}

// A source repeating a runtime series does not break the scrape nor
// replace the real series: the handler serves the runtime's and leaves the
// impostor out.
func TestMetricsHandlerClash(t *testing.T) {
	other := prometheus.NewRegistry()
	other.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "go_goroutines", Help: "impostor"}))
	m := NewMetrics()
	srv := httptest.NewServer(MetricsHandler(m.Gatherer(), other))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, string(body), "\ncfzt_leader 0\n")
	require.NotContains(t, string(body), "impostor")
	require.Contains(t, string(body), "# HELP go_goroutines Number of goroutines")
}
