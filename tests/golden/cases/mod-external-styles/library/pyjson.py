#!/usr/bin/python
# WANT_JSON
import json
import sys

with open(sys.argv[1]) as f:
    args = json.load(f)
print(json.dumps({
    "changed": args.get("change", False),
    "name": args.get("name"),
    "check_mode": args["_ansible_check_mode"],
    "module_name": args["_ansible_module_name"],
    "diff": args["_ansible_diff"],
    "ansible_facts": {"pyjson_fact": args.get("name")},
    "warnings": ["a warning from pyjson"],
}))
