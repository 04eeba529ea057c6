package k8s

import (
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Some kubernetes.core modules (k8s_taint, k8s_drain) go through the
// Python client's typed API and return its models' to_dict(): every
// attribute of the model, in snake_case, null when the server left it
// out, and timestamps as datetimes (rendered with isoformat, +00:00). The
// tables below are the attributes of the models those results hold, as
// the reference installation's Python client (22.6) declares them.

// pyAttr is one attribute of a model: its Python name, its JSON name and
// its type: "" for a scalar, "dict" for a free-form map, "datetime", a
// model's name, or "[]" and a type for a list.
type pyAttr struct{ py, json, typ string }

var pyModels = map[string][]pyAttr{
	"Node": {{"api_version", "apiVersion", ""}, {"kind", "kind", ""}, {"metadata", "metadata", "ObjectMeta"}, {"spec", "spec", "NodeSpec"}, {"status", "status", "NodeStatus"}},
	"ObjectMeta": {{"annotations", "annotations", "dict"}, {"cluster_name", "clusterName", ""}, {"creation_timestamp", "creationTimestamp", "datetime"},
		{"deletion_grace_period_seconds", "deletionGracePeriodSeconds", ""}, {"deletion_timestamp", "deletionTimestamp", "datetime"},
		{"finalizers", "finalizers", ""}, {"generate_name", "generateName", ""}, {"generation", "generation", ""}, {"labels", "labels", "dict"},
		{"managed_fields", "managedFields", "[]ManagedFieldsEntry"}, {"name", "name", ""}, {"namespace", "namespace", ""},
		{"owner_references", "ownerReferences", "[]OwnerReference"}, {"resource_version", "resourceVersion", ""}, {"self_link", "selfLink", ""}, {"uid", "uid", ""}},
	"ManagedFieldsEntry": {{"api_version", "apiVersion", ""}, {"fields_type", "fieldsType", ""}, {"fields_v1", "fieldsV1", "dict"}, {"manager", "manager", ""},
		{"operation", "operation", ""}, {"subresource", "subresource", ""}, {"time", "time", "datetime"}},
	"OwnerReference": {{"api_version", "apiVersion", ""}, {"block_owner_deletion", "blockOwnerDeletion", ""}, {"controller", "controller", ""},
		{"kind", "kind", ""}, {"name", "name", ""}, {"uid", "uid", ""}},
	"NodeSpec": {{"config_source", "configSource", "NodeConfigSource"}, {"external_id", "externalID", ""}, {"pod_cidr", "podCIDR", ""},
		{"pod_cid_rs", "podCIDRs", ""}, {"provider_id", "providerID", ""}, {"taints", "taints", "[]Taint"}, {"unschedulable", "unschedulable", ""}},
	"NodeConfigSource": {{"config_map", "configMap", "ConfigMapNodeConfigSource"}},
	"ConfigMapNodeConfigSource": {{"kubelet_config_key", "kubeletConfigKey", ""}, {"name", "name", ""}, {"namespace", "namespace", ""},
		{"resource_version", "resourceVersion", ""}, {"uid", "uid", ""}},
	"Taint": {{"effect", "effect", ""}, {"key", "key", ""}, {"time_added", "timeAdded", "datetime"}, {"value", "value", ""}},
	"NodeStatus": {{"addresses", "addresses", "[]NodeAddress"}, {"allocatable", "allocatable", "dict"}, {"capacity", "capacity", "dict"},
		{"conditions", "conditions", "[]NodeCondition"}, {"config", "config", "NodeConfigStatus"}, {"daemon_endpoints", "daemonEndpoints", "NodeDaemonEndpoints"},
		{"images", "images", "[]ContainerImage"}, {"node_info", "nodeInfo", "NodeSystemInfo"}, {"phase", "phase", ""},
		{"volumes_attached", "volumesAttached", "[]AttachedVolume"}, {"volumes_in_use", "volumesInUse", ""}},
	"NodeAddress": {{"address", "address", ""}, {"type", "type", ""}},
	"NodeCondition": {{"last_heartbeat_time", "lastHeartbeatTime", "datetime"}, {"last_transition_time", "lastTransitionTime", "datetime"},
		{"message", "message", ""}, {"reason", "reason", ""}, {"status", "status", ""}, {"type", "type", ""}},
	"NodeConfigStatus": {{"active", "active", "NodeConfigSource"}, {"assigned", "assigned", "NodeConfigSource"}, {"error", "error", ""},
		{"last_known_good", "lastKnownGood", "NodeConfigSource"}},
	"NodeDaemonEndpoints": {{"kubelet_endpoint", "kubeletEndpoint", "DaemonEndpoint"}},
	"DaemonEndpoint":      {{"port", "Port", ""}},
	"ContainerImage":      {{"names", "names", ""}, {"size_bytes", "sizeBytes", ""}},
	"NodeSystemInfo": {{"architecture", "architecture", ""}, {"boot_id", "bootID", ""}, {"container_runtime_version", "containerRuntimeVersion", ""},
		{"kernel_version", "kernelVersion", ""}, {"kube_proxy_version", "kubeProxyVersion", ""}, {"kubelet_version", "kubeletVersion", ""},
		{"machine_id", "machineID", ""}, {"operating_system", "operatingSystem", ""}, {"os_image", "osImage", ""}, {"system_uuid", "systemUUID", ""}},
	"AttachedVolume": {{"device_path", "devicePath", ""}, {"name", "name", ""}},
}

// pyToDict renders a JSON object as the Python client's model typ and
// its to_dict() would. Fields the model does not declare are dropped, as
// the client drops them when it deserializes.
func pyToDict(v any, typ string) any {
	if v == nil {
		return nil
	}
	switch {
	case typ == "" || typ == "dict":
		return value.DeepCopy(v)
	case typ == "datetime":
		return pyDatetime(v)
	case strings.HasPrefix(typ, "[]"):
		l, ok := v.([]any)
		if !ok {
			return value.DeepCopy(v)
		}
		out := make([]any, len(l))
		for i, it := range l {
			out[i] = pyToDict(it, typ[2:])
		}
		return out
	}
	d, ok := v.(*value.Dict)
	attrs := pyModels[typ]
	if !ok || attrs == nil {
		return value.DeepCopy(v)
	}
	out := value.NewDict(len(attrs))
	for _, a := range attrs {
		x, _ := d.Get(a.json)
		out.Set(a.py, pyToDict(x, a.typ))
	}
	return out
}

// pyDatetime is a Kubernetes timestamp as Python's isoformat of the
// datetime the client parses it into.
func pyDatetime(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	layout := "2006-01-02T15:04:05"
	if t.Nanosecond() != 0 {
		layout += ".000000"
	}
	return t.Format(layout) + t.Format("-07:00")
}
