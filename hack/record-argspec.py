#!/usr/bin/env python3
"""Records what ansible-core's ArgumentSpecValidator does with each case of
engine/module/argspec/testdata/cases.yaml into cases.expected.json, so the Go
validator can be compared with it without Python. Run through
hack/record-argspec.sh, which puts the oracle's ansible on PYTHONPATH."""
import json
import os
import sys

import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError

here = os.path.join(os.path.dirname(__file__), "..", "engine", "module", "argspec", "testdata")
with open(os.path.join(here, "cases.yaml")) as f:
    cases = yaml.safe_load(f)

out = []
for c in cases:
    rules = c.get("rules") or {}
    v = ArgumentSpecValidator(c["spec"], **rules)
    r = v.validate(dict(c.get("params") or {}))
    errors = []
    for e in r.errors:
        errors.append({"msg": e.msg if hasattr(e, "msg") else str(e), "unsupported": isinstance(e, UnsupportedError)})
    out.append({
        "name": c["name"],
        "params": r.validated_parameters,
        "errors": errors,
    })
json.dump(out, sys.stdout, indent=1, sort_keys=True, default=repr)
sys.stdout.write("\n")
