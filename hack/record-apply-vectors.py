#!/usr/bin/env python3
"""Record modules/k8s/testdata/apply-vectors.json from kubernetes.core's own
apply.py (the oracle's kubernetes.core 6.1, see hack/install-oracle.sh).

Each vector is a live object and a definition; the recorded answer is what
k8s_apply sends: the merge patch, null when it only reads the object back,
or the error it raises. Run:

    PYTHONPATH=~/.cache/ansible-oracle/root/usr/lib/python3/dist-packages \
        python3 hack/record-apply-vectors.py > modules/k8s/testdata/apply-vectors.json
"""
import copy
import json
import sys

from ansible_collections.kubernetes.core.plugins.module_utils import apply as k8sapply

ANN = k8sapply.LAST_APPLIED_CONFIG_ANNOTATION


def cm(data, name="c", **meta):
    md = {"name": name, "namespace": "ns"}
    md.update(meta)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}


def live(last, obj=None, raw=None):
    """obj as the server holds it, applied from last (or with raw as the
    annotation's text)."""
    out = copy.deepcopy(obj if obj is not None else last)
    out["metadata"]["uid"] = "u-1"
    out["metadata"]["resourceVersion"] = "7"
    ann = raw if raw is not None else json.dumps(last, separators=(",", ":"), sort_keys=True)
    out["metadata"].setdefault("annotations", {})[ANN] = ann
    return out


def deploy(containers, name="d"):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}}}}


def svc(ports):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "ns"}, "spec": {"ports": ports}}


c1 = [{"name": "main", "image": "img:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}]
c1live = c1 + [{"name": "sidecar", "image": "side:1"}]
c2 = [{"name": "main", "image": "img:2", "env": [{"name": "A", "value": "1"}]}]

CASES = [
    ("no annotation", dict(cm({"k": "1"}), metadata={"name": "c", "namespace": "ns", "uid": "u"}), cm({"k": "2"})),
    ("unchanged", live(cm({"k": "1"})), cm({"k": "1"})),
    ("changed value", live(cm({"k": "1"})), cm({"k": "2"})),
    ("removed key", live(cm({"k": "1", "gone": "x"})), cm({"k": "1"})),
    ("key added by another client kept", live(cm({"k": "1"}), cm({"k": "1", "theirs": "t"})), cm({"k": "2"})),
    ("drift put back", live(cm({"k": "1"}), cm({"k": "drift"})), cm({"k": "1"})),
    ("labels removed", live(dict(cm({"k": "1"}), metadata={"name": "c", "namespace": "ns", "labels": {"a": "1", "b": "2"}})),
     dict(cm({"k": "1"}), metadata={"name": "c", "namespace": "ns", "labels": {"a": "1"}})),
    ("whole mapping removed", live(dict(cm({"k": "1"}), metadata={"name": "c", "namespace": "ns", "labels": {"a": "1"}})),
     cm({"k": "1"})),
    ("unicode", live(cm({"k": "1"})), cm({"k": "\u00e9\u2603"})),
    ("none value", live(cm({"k": "1"})), cm({"k": None})),
    ("int and float", live({"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": 1}}),
     {"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": 1.0}}),
    ("bool and int", live({"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": 1}}),
     {"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": True}}),
    ("scalar to mapping", live({"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": 1}}),
     {"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": {"a": 1}}}),
    ("mapping to scalar", live({"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": {"a": 1}}}),
     {"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"n": 2}}),
    ("containers merged by name", live(deploy(c1), deploy(c1live)), deploy(c2)),
    ("containers unchanged", live(deploy(c1), deploy(c1live)), deploy(c1)),
    ("container added", live(deploy(c1)), deploy(c1 + [{"name": "extra", "image": "e:1"}])),
    ("container removed", live(deploy(c1live)), deploy(c1)),
    ("service ports by port", live(svc([{"port": 80, "targetPort": 8080}]),
                                   svc([{"port": 80, "targetPort": 8080, "protocol": "TCP"}, {"port": 443, "protocol": "TCP"}])),
     svc([{"port": 80, "targetPort": 9090}])),
    ("plain list replaced", live({"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"args": ["a", "b"]}}),
     {"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"args": ["a"]}}),
    ("duplicate merge keys", live(deploy(c1), deploy(c1live)),
     deploy([{"name": "main", "image": "x:1"}, {"name": "main", "image": "x:2"}])),
    ("merge key missing in last-applied", live(deploy([{"image": "i"}]), deploy(c1)), deploy(c1)),
    ("merge key missing in definition", live(deploy(c1)), deploy([{"image": "i"}])),
    ("annotation null", live(cm({}), raw="null"), cm({"k": "1"})),
    ("annotation list", live(cm({}), raw="[1, 2]"), cm({"k": "1"})),
    ("annotation number", live(cm({}), raw="7"), cm({"k": "1"})),
    ("annotation string", live(cm({}), raw='"text"'), cm({"k": "1"})),
    ("annotation empty object", live(cm({}), raw="{}"), cm({"k": "1"})),
    ("annotation scalar where definition maps", live(cm({}), raw='{"data": 7}'), cm({"k": "1"})),
    ("annotation metadata a string", live(cm({}), raw='{"kind": "ConfigMap", "metadata": "x"}'), cm({"k": "1"})),
    ("annotation containers not a list", live(deploy(c1), raw=json.dumps(deploy("abc"))), deploy(c1)),
    ("annotation container not a mapping", live(deploy(c1), raw=json.dumps(deploy(["main"]))), deploy(c1)),
    ("annotation merge key a mapping", live(deploy(c1), raw=json.dumps(deploy([{"name": {"x": 1}}]))), deploy(c1)),
]


def record(name, actual, definition):
    out = {"name": name, "live": actual, "definition": definition}
    try:
        existing, desired = k8sapply.apply_patch(copy.deepcopy(actual), copy.deepcopy(definition))
        out["patch"] = None if existing == desired else desired
    except k8sapply.ApplyException as e:
        out["error"] = "Could not apply strategic merge to %s/%s: %s" % (definition["kind"], definition["metadata"]["name"], e)
    except Exception as e:  # what the task's "Failed to apply object: " message carries
        out["error"] = str(e)
    return out


json.dump([record(*c) for c in CASES], sys.stdout, indent=1, sort_keys=True, ensure_ascii=True)
sys.stdout.write("\n")
