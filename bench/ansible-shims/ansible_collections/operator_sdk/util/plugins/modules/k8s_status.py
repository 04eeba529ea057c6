#!/usr/bin/python
# -*- coding: utf-8 -*-
# Test-only stand-in for operator_sdk.util.k8s_status, written for cfzt-runner
# so that the reference ansible-playbook can run the operator's roles. It
# behaves like the Operator SDK module; see ../../../../../README.md.

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: k8s_status
short_description: Set fields of a Kubernetes object's status through its /status subresource
description:
  - Reads the object; if the requested status is already contained in its
    status nothing is sent, otherwise a JSON merge patch carrying the read
    resourceVersion is sent to the status subresource (a PUT with I(force)).
options:
  api_version:
    type: str
    default: v1
    aliases: [api, version]
  kind:
    type: str
    required: true
  name:
    type: str
    required: true
  namespace:
    type: str
  status:
    type: dict
    description: Keys to set on the status; a null value removes the key.
  conditions:
    type: list
    elements: dict
    description: Conditions merged by type into status.conditions.
  force:
    type: bool
    default: false
    description: Replace the whole status with a PUT instead of patching it.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
"""

RETURN = r"""
result:
  description: The object after the update (or as read when unchanged).
  returned: success
  type: dict
"""

import copy
import re

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import (
    AnsibleModule,
)
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import (
    AUTH_ARG_SPEC,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import (
    AnsibleK8SModule,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import (
    get_api_client,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import (
    CoreException,
)

try:
    from kubernetes.dynamic.exceptions import DynamicApiError, NotFoundError
except ImportError:  # reported by AnsibleK8SModule's requirement check
    DynamicApiError = NotFoundError = Exception

_CONDITION_KEYS = ("type", "status", "reason", "message", "lastHeartbeatTime", "lastTransitionTime")
_REASON = re.compile(r"^[A-Za-z]*$")
_RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?([+-]\d\d:\d\d|Z)$")


def check_conditions(conditions):
    """Validate conditions the way the Kubernetes API conventions describe them."""
    out = []
    for cond in conditions:
        if not isinstance(cond, dict):
            raise ValueError("`conditions` must be a list of objects")
        cond = dict(cond)
        if isinstance(cond.get("status"), bool):
            cond["status"] = "True" if cond["status"] else "False"
        for key in cond:
            if key not in _CONDITION_KEYS:
                raise ValueError("{0} is not a valid field for a condition, accepted fields are {1}".format(key, list(_CONDITION_KEYS)))
        for key in ("type", "status"):
            if not cond.get(key):
                raise ValueError("Condition `{0}` must be set".format(key))
        if cond["status"] not in ("True", "False", "Unknown"):
            raise ValueError('Condition `status` must be one of ["True", "False", "Unknown"], not {0}'.format(cond["status"]))
        if cond.get("reason") and not _REASON.match(cond["reason"]):
            raise ValueError("Condition `reason` must be a single, CamelCase word")
        for key in ("lastHeartbeatTime", "lastTransitionTime"):
            if cond.get(key) and not _RFC3339.match(cond[key]):
                raise ValueError("`{0}` must be a RFC3339 compliant datetime string".format(key))
        out.append(cond)
    return out


def contains(have, want):
    """True when want is already reflected in have: dicts key by key,
    lists by containment of each wanted item, other values by equality."""
    if isinstance(want, dict):
        if not isinstance(have, dict):
            return False
        return all(contains(have.get(k), v) for k, v in want.items())
    if isinstance(want, (list, tuple)):
        if not isinstance(have, (list, tuple)):
            return False
        return all(item in have for item in want)
    return have == want


def merge_conditions(old, new):
    merged = copy.deepcopy(old)
    for cond in new:
        for i, existing in enumerate(merged):
            if existing.get("type") == cond["type"]:
                merged[i] = cond
                break
        else:
            merged.append(cond)
    return merged


def argspec():
    args = copy.deepcopy(AUTH_ARG_SPEC)
    args.update(
        dict(
            api_version=dict(type="str", default="v1", aliases=["api", "version"]),
            kind=dict(type="str", required=True),
            name=dict(type="str", required=True),
            namespace=dict(type="str"),
            status=dict(type="dict"),
            conditions=dict(type="list", elements="dict"),
            force=dict(type="bool", default=False),
        )
    )
    return args


def run(module, client):
    params = module.params
    status = copy.deepcopy(params.get("status") or {})
    try:
        conditions = check_conditions(params.get("conditions") or [])
    except ValueError as e:
        module.fail_json(msg=str(e))
    if conditions and status.get("conditions"):
        module.fail_json(msg="You cannot specify conditions in both the `status` and `conditions` parameters")
    if conditions:
        status["conditions"] = conditions
    if not status and not params.get("force"):
        module.fail_json(msg="one of the following is required: status, conditions")

    try:
        resource = client.resource(params["kind"], params["api_version"])
    except Exception as e:  # ResourceNotFoundError and discovery failures
        module.fail_json(msg="Failed to find the resource {0}.{1}: {2}".format(params["api_version"], params["kind"], e))
    if "status" not in getattr(resource, "subresources", {}):
        module.fail_json(msg="Resource {0}.{1} does not support the status subresource".format(resource.api_version, resource.kind))

    try:
        instance = client.get(resource, name=params["name"], namespace=params["namespace"]).to_dict()
    except DynamicApiError as e:
        module.fail_json(msg="Failed to retrieve requested object: {0}".format(e), error=getattr(e, "summary", lambda: str(e))())
    current = instance.get("status") or {}

    if params.get("force"):
        if status == current:
            module.exit_json(changed=False, result=instance)
        instance["status"] = status
        if module.check_mode:
            module.exit_json(changed=True, result=instance)
        try:
            result = resource.status.replace(body=instance).to_dict()
        except DynamicApiError as e:
            module.fail_json(msg="Failed to replace status: {0}".format(e), error=getattr(e, "summary", lambda: str(e))())
        module.exit_json(changed=True, result=result)

    compare = copy.deepcopy(current)
    for cond in compare.get("conditions") or []:
        if isinstance(cond, dict):
            cond.pop("lastTransitionTime", None)
    if contains(compare, status):
        module.exit_json(changed=False, result=instance)

    if current.get("conditions") and status.get("conditions"):
        status["conditions"] = merge_conditions(current["conditions"], status["conditions"])
    meta = instance.get("metadata") or {}
    body = {
        "apiVersion": instance.get("apiVersion"),
        "kind": instance.get("kind"),
        "metadata": {"name": meta.get("name"), "resourceVersion": meta.get("resourceVersion")},
        "status": status,
    }
    if meta.get("namespace"):
        body["metadata"]["namespace"] = meta["namespace"]
    if module.check_mode:
        instance["status"] = dict(current, **status)
        module.exit_json(changed=True, result=instance)
    try:
        result = resource.status.patch(
            body=body,
            name=meta.get("name"),
            namespace=meta.get("namespace"),
            content_type="application/merge-patch+json",
        ).to_dict()
    except DynamicApiError as e:
        module.fail_json(msg="Failed to patch status: {0}".format(e), error=getattr(e, "summary", lambda: str(e))(), status=getattr(e, "status", None))
    module.exit_json(changed=True, result=result)


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        client = get_api_client(module)
    except CoreException as e:
        module.fail_from_exception(e)
    run(module, client)


if __name__ == "__main__":
    main()
