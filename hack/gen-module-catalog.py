#!/usr/bin/env python3
"""Writes engine/module/catalog/modules.txt: the module names the reference
Ansible (ansible-core 2.19 with the ansible 12 collections) resolves, so
that cfzt-runner loads a playbook naming a module it does not implement as
ansible-playbook does, and fails only the task that runs it.

Usage: hack/gen-module-catalog.py [ORACLE_DIR]   (default ~/.cache/ansible-oracle)

Format, one entry per line, sorted:
  ns.coll name name ...     modules of a collection (files in plugins/modules
                            and names its meta/runtime.yml redirects to one)
  = short ns.coll.name      ansible-core's module or action routing of a short name
"""
import os
import sys

import yaml

oracle = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/ansible-oracle")
site = os.path.join(oracle, "root/usr/lib/python3/dist-packages")
ignored = {".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst", ".yaml", ".yml", ".ini", ".ps1", ".psm1", ".cs"}

def module_files(d):
    names = set()
    for root, _, files in os.walk(d):
        for f in files:
            base, ext = os.path.splitext(f)
            if base.startswith("_") or base.startswith(".") or ext in ignored:
                continue
            names.add(base)
    return names

colls = {"ansible.builtin": module_files(os.path.join(site, "ansible/modules"))}
routing = {}
croot = os.path.join(site, "ansible_collections")
for ns in sorted(os.listdir(croot)):
    if not os.path.isdir(os.path.join(croot, ns)) or ns.endswith(".info"):
        continue
    for cn in sorted(os.listdir(os.path.join(croot, ns))):
        base = os.path.join(croot, ns, cn)
        colls[ns + "." + cn] = module_files(os.path.join(base, "plugins/modules"))
        rt = os.path.join(base, "meta/runtime.yml")
        if os.path.exists(rt):
            data = yaml.safe_load(open(rt)) or {}
            for name, spec in ((data.get("plugin_routing") or {}).get("modules") or {}).items():
                if spec and "redirect" in spec and "tombstone" not in spec:
                    routing[ns + "." + cn + "." + name] = spec["redirect"]

def exists(fqcn, depth=0):
    if depth > 5 or fqcn.count(".") < 2:
        return False
    coll, name = fqcn.rsplit(".", 1)
    if name in colls.get(coll, ()):
        return True
    return fqcn in routing and exists(routing[fqcn], depth + 1)

for src in sorted(routing):
    if exists(src):
        coll, name = src.rsplit(".", 1)
        colls.setdefault(coll, set()).add(name)

core = yaml.safe_load(open(os.path.join(site, "ansible/config/ansible_builtin_runtime.yml")))
short = {}
# Module routing, then action routing (yum goes to dnf's action).
for kind in ("modules", "action"):
    for name, spec in (core["plugin_routing"].get(kind) or {}).items():
        if spec and "redirect" in spec and "tombstone" not in spec and exists(spec["redirect"]):
            if name not in colls["ansible.builtin"]:
                short.setdefault(name, spec["redirect"])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../engine/module/catalog/modules.txt")
with open(out, "w") as f:
    for coll in sorted(colls):
        if colls[coll]:
            f.write(coll + " " + " ".join(sorted(colls[coll])) + "\n")
    for name in sorted(short):
        f.write("= " + name + " " + short[name] + "\n")
print(out, sum(len(v) for v in colls.values()), "modules,", len(short), "routed short names")
