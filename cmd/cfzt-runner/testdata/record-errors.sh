#!/usr/bin/env bash
# Records the error-path expectations in testdata/errors/ from the real
# ansible-playbook (installed by hack/install-oracle.sh when missing): for
# each case directory, stdout, stderr and the exit code of
#   ansible-playbook -i localhost, playbook.yml
# run in the case directory go to expected.out, expected.err and
# expected.rc, with the case directory's absolute path replaced by <DIR>.
# These files are written only by this script.
#
# Usage: cmd/cfzt-runner/testdata/record-errors.sh [CASE...]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
ORACLE=$(sh "$ROOT/hack/install-oracle.sh")
HOMEDIR=$(mktemp -d /tmp/cfzt-errors-home.XXXXXX)
trap 'rm -rf "$HOMEDIR"' EXIT
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=($(cd "$HERE/errors" && ls))
for name in "${cases[@]}"; do
  dir="$HERE/errors/$name"
  set +e
  (cd "$dir" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOMEDIR" \
    ANSIBLE_LOCAL_TEMP="$HOMEDIR/.ansible/tmp" ANSIBLE_NOCOLOR=1 ANSIBLE_STDOUT_CALLBACK=default \
    ANSIBLE_LOCALHOST_WARNING=False ANSIBLE_INVENTORY_UNPARSED_WARNING=False ANSIBLE_FORKS=1 \
    LC_ALL=C.UTF-8 TZ=UTC "$ORACLE" -i localhost, playbook.yml >"$dir/expected.out.tmp" 2>"$dir/expected.err.tmp")
  echo $? >"$dir/expected.rc"
  set -e
  for f in out err; do
    sed "s#$dir#<DIR>#g; s#$HOMEDIR#<HOME>#g" "$dir/expected.$f.tmp" >"$dir/expected.$f"
    rm -f "$dir/expected.$f.tmp"
  done
  echo "recorded $name (rc $(cat "$dir/expected.rc"))"
done
