#!/bin/sh
# Re-records engine/template/testdata/fileopts.expected.json from the
# reference ansible-core (installed by hack/install-oracle.sh when missing).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ORACLE=$(sh "$ROOT/hack/install-oracle.sh")
SITE=$(dirname "$(dirname "$ORACLE")")/root/usr/lib/python3/dist-packages
PYTHONHASHSEED=0 PYTHONPATH="$SITE" python3 "$ROOT/hack/record-template-opts.py" > "$ROOT/engine/template/testdata/fileopts.expected.json"
echo "recorded $ROOT/engine/template/testdata/fileopts.expected.json"
