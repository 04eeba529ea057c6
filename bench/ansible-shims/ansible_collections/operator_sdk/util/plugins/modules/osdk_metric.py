#!/usr/bin/python
# -*- coding: utf-8 -*-
# Test-only stand-in for operator_sdk.util.osdk_metric, written for
# cfzt-runner so that ansible-operator (through ansible-runner and the
# reference ansible-playbook) can run operator-sdk's memcached sample in the
# benchmark. It sends the metric to ansible-operator's metrics endpoint as
# the Operator SDK module does; see ../../../../../README.md.

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: osdk_metric
short_description: Create or update a Prometheus metric served by ansible-operator
description:
  - Sends one metric operation as JSON to ansible-operator's user metrics
    endpoint, which defines the metric on first use.
options:
  name:
    type: str
    required: true
  description:
    type: str
    required: true
  address:
    type: str
    default: http://localhost:5050/metrics
  counter:
    type: dict
    description: increment (bool) or add (float).
  gauge:
    type: dict
    description: set, add, subtract (float); increment, decrement, set_to_current_time (bool).
  histogram:
    type: dict
    description: observe (float).
  summary:
    type: dict
    description: observe (float).
"""

import json

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url

# The operations each metric kind accepts, with their types.
OPERATIONS = {
    "counter": {"increment": "bool", "add": "float"},
    "gauge": {
        "set": "float",
        "increment": "bool",
        "decrement": "bool",
        "add": "float",
        "subtract": "float",
        "set_to_current_time": "bool",
    },
    "histogram": {"observe": "float"},
    "summary": {"observe": "float"},
}


def argument_spec():
    spec = {
        "name": {"type": "str", "required": True},
        "description": {"type": "str", "required": True},
        "address": {"type": "str", "default": "http://localhost:5050/metrics"},
    }
    for kind, ops in OPERATIONS.items():
        spec[kind] = {"type": "dict", "options": {op: {"type": t} for op, t in ops.items()}}
    return spec


def main():
    module = AnsibleModule(argument_spec=argument_spec())
    body = {"name": module.params["name"], "description": module.params["description"]}
    for kind in OPERATIONS:
        # An empty dict (e.g. `counter: {}`) still names the kind: argument
        # parsing fills its operations with None.
        if module.params[kind] is not None:
            body[kind] = module.params[kind]
    try:
        open_url(
            module.params["address"],
            data=json.dumps(body),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
    except Exception as e:  # HTTPError carries the endpoint's message
        detail = getattr(e, "read", None)
        msg = detail().decode("utf-8", "replace") if detail else str(e)
        module.fail_json(msg=msg, status_code=getattr(e, "code", None))
    module.exit_json(changed=True)


if __name__ == "__main__":
    main()
