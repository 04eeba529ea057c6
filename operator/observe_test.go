package operator

import (
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/stretchr/testify/require"
)

// TestMetricsObserveResults checks that the metrics, as the runner's
// observer, count results by module and status, an ignored failure as
// "ignored".
func TestMetricsObserveResults(t *testing.T) {
	m := NewMetrics()
	info := &playbook.Task{Module: "k8s_info"}
	for _, ev := range []*run.Event{
		{Task: info, Status: run.StatusOK},
		{Task: info, Status: run.StatusOK},
		{Task: info, Status: run.StatusChanged},
		{Task: info, Status: run.StatusSkipped},
		{Task: info, Status: run.StatusFailed},
		{Task: info, Status: run.StatusFailed, Ignored: true},
	} {
		m.Observe(ev)
	}
	var b strings.Builder
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	for _, want := range []string{
		`cfzt_task_results_total{module="k8s_info",status="ok"} 2`,
		`cfzt_task_results_total{module="k8s_info",status="changed"} 1`,
		`cfzt_task_results_total{module="k8s_info",status="skipped"} 1`,
		`cfzt_task_results_total{module="k8s_info",status="failed"} 1`,
		`cfzt_task_results_total{module="k8s_info",status="ignored"} 1`,
	} {
		require.Contains(t, b.String(), want+"\n")
	}
}
