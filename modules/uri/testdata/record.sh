#!/usr/bin/env bash
# Records the expected output of the uri golden playbooks (golden/*.yml)
# from the reference ansible-playbook (installed by hack/install-oracle.sh
# when missing) against the test servers of package uritest, into
# golden/<name>.out. Ports, dates and directories are normalized the way
# TestGolden normalizes cfzt-runner's output. Never edit the .out files.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
ORACLE=$(sh "$ROOT/hack/install-oracle.sh" | tail -n 1)
WORK=$(mktemp -d /tmp/cfzt-uri-golden.XXXXXX)
trap 'exec 3>&-; rm -rf "$WORK"' EXIT
cd "$ROOT"
go build -o "$WORK/server" ./modules/uri/uritest/cmd/uri-test-server
mkdir -p "$WORK/certs" "$WORK/home"
# The server runs until its stdin (fd 3 here) closes.
exec 3> >("$WORK/server" -dir "$WORK/certs" -vars "$WORK/vars.json")
for _ in $(seq 50); do [ -s "$WORK/vars.json" ] && break; sleep 0.1; done
for book in "$HERE"/golden/*.yml; do
  name=$(basename "$book" .yml)
  ( cd "$HERE/golden" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK/home" LC_ALL=C.UTF-8 TZ=UTC \
      ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=False ANSIBLE_INVENTORY_UNPARSED_WARNING=False \
      ANSIBLE_LOCAL_TEMP="$WORK/home/.ansible/tmp" \
      "$ORACLE" -e "@$WORK/vars.json" "$name.yml" 2>/dev/null || true ) |
    "$WORK/server" -normalize -playdir "$HERE/golden" -dir "$WORK/certs" > "$HERE/golden/$name.out"
  echo "recorded golden/$name.out"
done
