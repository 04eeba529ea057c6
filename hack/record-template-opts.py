#!/usr/bin/env python3
"""Records what ansible-core's TemplateEngine makes of each template of
engine/template/testdata/fileopts.yaml, rendered as the template action
renders a file (escape_backslashes=False, the task's options as
TemplateOverrides), into fileopts.expected.json. Run through
hack/record-template-opts.sh, which puts the oracle's ansible on PYTHONPATH."""
import json
import os
import sys

import yaml
from ansible._internal._templating._engine import TemplateEngine, TemplateOptions, TemplateOverrides
from ansible.template import trust_as_template

here = os.path.join(os.path.dirname(__file__), "..", "engine", "template", "testdata")
with open(os.path.join(here, "fileopts.yaml")) as f:
    spec = yaml.safe_load(f)


def trusted(v):
    if isinstance(v, str):
        return trust_as_template(v)
    if isinstance(v, list):
        return [trusted(e) for e in v]
    if isinstance(v, dict):
        return {k: trusted(e) for k, e in v.items()}
    return v


def render(name, src, opts, variables):
    engine = TemplateEngine(variables=trusted(variables))
    options = TemplateOptions(escape_backslashes=False, overrides=TemplateOverrides.from_kwargs(opts))
    rec = {"name": name, "src": src, "opts": opts, "vars": variables}
    try:
        rec["out"] = engine.template(trust_as_template(src), options=options)
    except Exception as ex:  # the message is what the comparison needs
        rec["err"] = str(ex)
    return rec


out = []
for i, src in enumerate(spec["matrix"]["sources"]):
    for j, opts in enumerate(spec["matrix"]["options"]):
        out.append(render("matrix %d/%d" % (i, j), src, opts, spec["vars"]))
for c in spec["cases"]:
    out.append(render(c["name"], c["src"], c.get("opts") or {}, dict(spec["vars"], **(c.get("vars") or {}))))
json.dump(out, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
sys.stdout.write("\n")
