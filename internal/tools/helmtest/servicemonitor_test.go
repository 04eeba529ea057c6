package helmtest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// metricsValues are the default values with metrics.serviceMonitor set.
func metricsValues(serviceMonitor map[string]any) map[string]any {
	return map[string]any{"metrics": map[string]any{"enabled": true, "port": 8080, "serviceMonitor": serviceMonitor}}
}

// TestRenderServiceMonitor checks the ServiceMonitor: absent by default,
// and when enabled it scrapes /metrics on the metrics Service's named port,
// selecting that Service by its labels, with the interval, timeout and
// labels of the values.
func TestRenderServiceMonitor(t *testing.T) {
	r, err := Render(ChartDir(root), "cfzt", operatorNamespace, nil)
	require.NoError(t, err)
	require.Nil(t, r.Find("ServiceMonitor", operatorName), "off by default")

	r, err = Render(ChartDir(root), "cfzt", operatorNamespace, metricsValues(map[string]any{
		"enabled": true, "interval": "15s", "scrapeTimeout": "10s", "labels": map[string]any{"release": "kube-prometheus-stack"},
	}))
	require.NoError(t, err)
	sm := r.Find("ServiceMonitor", operatorName)
	require.NotNil(t, sm, "%v", r.Kinds())
	require.Equal(t, "monitoring.coreos.com/v1", sm.GetAPIVersion())
	require.Equal(t, operatorNamespace, sm.GetNamespace())
	require.Equal(t, "kube-prometheus-stack", sm.GetLabels()["release"])
	require.Equal(t, "cfzt-operator", sm.GetLabels()["app.kubernetes.io/name"])
	require.Equal(t, []any{operatorNamespace}, nested(t, sm.Object, "spec", "namespaceSelector", "matchNames"))
	eps := nested(t, sm.Object, "spec", "endpoints").([]any)
	require.Len(t, eps, 1)
	ep := eps[0].(map[string]any)
	require.Equal(t, "/metrics", ep["path"])
	require.Equal(t, "15s", ep["interval"])
	require.Equal(t, "10s", ep["scrapeTimeout"])

	// It selects the metrics Service, and only it, and names its port.
	svc := r.Find("Service", operatorName+"-metrics")
	require.NotNil(t, svc)
	sel := nested(t, sm.Object, "spec", "selector", "matchLabels").(map[string]any)
	require.NotEmpty(t, sel)
	for k, v := range sel {
		require.Equal(t, v, svc.GetLabels()[k], "Service label %s", k)
	}
	for _, o := range r.Objects {
		if o.GetKind() == "Service" && o.GetName() != svc.GetName() {
			matches := true
			for k, v := range sel {
				matches = matches && o.GetLabels()[k] == v
			}
			require.False(t, matches, "also selects Service %s", o.GetName())
		}
	}
	ports := nested(t, svc.Object, "spec", "ports").([]any)
	require.Equal(t, ep["port"], ports[0].(map[string]any)["name"])

	// No timeout unless one is set; the default interval is 30s.
	r, err = Render(ChartDir(root), "cfzt", operatorNamespace, metricsValues(map[string]any{"enabled": true}))
	require.NoError(t, err)
	ep = nested(t, r.Find("ServiceMonitor", operatorName).Object, "spec", "endpoints").([]any)[0].(map[string]any)
	require.Equal(t, "30s", ep["interval"])
	require.NotContains(t, ep, "scrapeTimeout")
}

// TestServiceMonitorBadValues: a ServiceMonitor without the metrics server
// it scrapes, a malformed interval and an unknown key are refused with an
// error naming the value.
func TestServiceMonitorBadValues(t *testing.T) {
	vals := metricsValues(map[string]any{"enabled": true})
	vals["metrics"].(map[string]any)["enabled"] = false
	_, err := Render(ChartDir(root), "cfzt", operatorNamespace, vals)
	require.ErrorContains(t, err, "metrics.serviceMonitor.enabled needs metrics.enabled")

	_, err = Render(ChartDir(root), "cfzt", operatorNamespace, metricsValues(map[string]any{"enabled": true, "interval": "soon"}))
	require.ErrorContains(t, err, "interval")

	_, err = Render(ChartDir(root), "cfzt", operatorNamespace, metricsValues(map[string]any{"enabled": true, "intervall": "30s"}))
	require.ErrorContains(t, err, "intervall")
}

// An attacker-chosen label value (values can come from a CI pipeline or a
// GitOps repository) stays one string: it cannot add keys to the
// ServiceMonitor, change its kind or add an object to the render.
func TestServiceMonitorLabelInjection(t *testing.T) {
	evil := "x\nkind: Secret\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: stolen}"
	r, err := Render(ChartDir(root), "cfzt", operatorNamespace, metricsValues(map[string]any{
		"enabled": true, "labels": map[string]any{"team": evil},
	}))
	require.NoError(t, err)
	sm := r.Find("ServiceMonitor", operatorName)
	require.NotNil(t, sm, "%v", r.Kinds())
	require.Equal(t, evil, sm.GetLabels()["team"])
	require.Nil(t, r.Find("Secret", "stolen"))
	for _, o := range r.Objects {
		require.NotEqual(t, "Secret", o.GetKind())
	}
}
