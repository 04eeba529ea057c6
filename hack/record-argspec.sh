#!/bin/sh
# Re-records engine/module/argspec/testdata/cases.expected.json from the
# reference ansible-core (installed by hack/install-oracle.sh when missing).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ORACLE=$(sh "$ROOT/hack/install-oracle.sh")
SITE=$(dirname "$(dirname "$ORACLE")")/root/usr/lib/python3/dist-packages
PYTHONHASHSEED=0 PYTHONPATH="$SITE" python3 "$ROOT/hack/record-argspec.py" > "$ROOT/engine/module/argspec/testdata/cases.expected.json"
echo "recorded $ROOT/engine/module/argspec/testdata/cases.expected.json"
