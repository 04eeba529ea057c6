#!/usr/bin/env bash
# Records the real ansible-playbook's --version block (installed by
# hack/install-oracle.sh when missing) into testdata/version/oracle.out,
# run in an empty directory with a fresh HOME and no ansible.cfg, with
# that HOME replaced by <HOME>. TestVersionLayout compares cfzt-runner's
# block with it line by line. The file is written only by this script.
#
# Usage: cmd/cfzt-runner/testdata/record-version.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
ORACLE=$(sh "$ROOT/hack/install-oracle.sh")
WORK=$(mktemp -d /tmp/cfzt-version.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/home" "$WORK/dir"
(cd "$WORK/dir" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK/home" \
  LC_ALL=C.UTF-8 TZ=UTC "$ORACLE" --version) | sed "s#$WORK/home#<HOME>#g" >"$HERE/version/oracle.out"
