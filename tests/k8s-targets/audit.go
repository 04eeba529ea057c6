package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Most targets delete their namespaces at the end, so what is left after
// a run says little. The apiserver's audit log says more: every object the
// playbook wrote, as the apiserver answered the last write. auditPolicy
// records the writes of the admin users (kubernetes-admin of the targets'
// kind-style kubeconfig, admin of the cluster's own) with their response
// bodies. The components use the admin kubeconfig too, so
// written keeps only the requests of the two runners, known by their
// User-Agent: the Python client's (OpenAPI-Generator/VERSION/python) and
// cfzt-runner's.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted, Panic]
rules:
  - level: RequestResponse
    users: [admin, kubernetes-admin]
    verbs: [create, update, patch, delete, deletecollection]
  - level: None
`

// auditArgs writes the policy to dir and returns the apiserver flags that
// log to dir/audit.log.
func auditArgs(dir string) ([]string, string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, "", err
	}
	log := filepath.Join(dir, "audit.log")
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + log,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--audit-log-maxsize=0",
	}, log, nil
}

type auditEvent struct {
	Verb       string `json:"verb"`
	UserAgent  string `json:"userAgent"`
	RequestURI string `json:"requestURI"`
	Stage      string `json:"stage"`
	ObjectRef  *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	ResponseObject map[string]any `json:"responseObject"`
}

// written reads an audit log and returns, for each object the admin
// created, updated or patched (not in a dry run, not a subresource other
// than status or scale), the normalised object of the last successful
// write, one JSON line each, sorted; and the writes as
// "verb group/resource ns/name" lines in order (deletions included), for
// the report.
func written(path string) (objs []string, writes []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	last := map[string]map[string]any{}
	res := map[string]resource{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev auditEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Stage != "ResponseComplete" || ev.ObjectRef == nil {
			continue
		}
		if !playbookAgent(ev.UserAgent) {
			continue
		}
		if strings.Contains(ev.RequestURI, "dryRun=") || ev.ResponseStatus == nil || ev.ResponseStatus.Code >= 300 {
			continue
		}
		ref := ev.ObjectRef
		if ref.Subresource != "" && ref.Subresource != "status" && ref.Subresource != "scale" {
			continue
		}
		name := ref.Name
		if name == "" && ev.ResponseObject != nil {
			if md, ok := ev.ResponseObject["metadata"].(map[string]any); ok {
				name, _ = md["name"].(string)
			}
		}
		k := fmt.Sprintf("%s/%s %s/%s", ref.APIGroup, ref.Resource, ref.Namespace, name)
		writes = append(writes, ev.Verb+" "+k)
		if ev.Verb == "delete" || ev.Verb == "deletecollection" || ref.Subresource == "scale" {
			continue
		}
		obj := ev.ResponseObject
		if obj == nil || obj["kind"] == "Status" {
			continue
		}
		kind, _ := obj["kind"].(string)
		last[k] = obj
		res[k] = resource{gvr: schema.GroupVersionResource{Group: ref.APIGroup, Resource: ref.Resource}, kind: kind}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, err := json.Marshal(normalize(res[k], last[k]))
		if err != nil {
			return nil, nil, err
		}
		objs = append(objs, string(b))
	}
	return objs, writes, nil
}

// playbookAgent: a request made by the playbook, under either runner.
func playbookAgent(ua string) bool {
	return strings.HasPrefix(ua, "cfzt-runner") || strings.HasPrefix(ua, "OpenAPI-Generator/")
}
