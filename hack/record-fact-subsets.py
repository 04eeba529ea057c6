#!/usr/bin/env python3
"""Records which fact collectors ansible-core selects for each
gather_subset of modules/facts/testdata/subsets.yaml (on Linux) into
subsets.expected.json, so the Go selection can be compared with it
without Python. Run through hack/record-fact-subsets.sh, which puts the
oracle's ansible on PYTHONPATH."""
import json
import os
import sys

import yaml
from ansible.module_utils.facts import collector, default_collectors

here = os.path.join(os.path.dirname(__file__), "..", "modules", "facts", "testdata")
with open(os.path.join(here, "subsets.yaml")) as f:
    cases = yaml.safe_load(f)

minimal = frozenset(['apparmor', 'caps', 'cmdline', 'date_time', 'distribution', 'dns', 'env', 'fips', 'local',
                     'lsb', 'pkg_mgr', 'platform', 'python', 'selinux', 'service_mgr', 'ssh_pub_keys', 'user'])
out = []
for subset in cases:
    entry = {"gather_subset": subset}
    try:
        classes = collector.collector_classes_from_gather_subset(
            all_collector_classes=default_collectors.collectors,
            minimal_gather_subset=minimal,
            gather_subset=subset,
            platform_info={'system': 'Linux'})
        entry["collectors"] = sorted(c.name for c in classes)
    except Exception as e:  # noqa: BLE001 - the message is what is recorded
        entry["error"] = str(e)
    out.append(entry)
json.dump(out, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
