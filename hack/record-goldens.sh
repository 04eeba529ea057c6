#!/usr/bin/env bash
# Re-records the golden corpus from the real ansible-playbook (ansible-core
# 2.19, installed by hack/install-oracle.sh when missing).
#
# Usage: hack/record-goldens.sh [CASE...]     (default: every case)
#
# For each tests/golden/cases/<name>/ it runs, with cwd = the case directory,
#   ansible-playbook [-i localhost,] [ARGS...] playbook.yml
# where ARGS are the lines of the case's `args` file (one argument per line;
# blank lines and lines starting with # are ignored) and `-i localhost,` is
# added unless ARGS name an inventory. The environment is the fixed one below
# plus the KEY=VALUE lines of the case's `env` file. stdout, stderr and the
# exit code go to expected.out, expected.err and expected.rc. These files are
# written only by this script; never edit them by hand.
#
# tests/golden/golden_test.go runs cfzt-runner the same way; keep the two in
# step (see tests/golden/README.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CASES="$ROOT/tests/golden/cases"
ORACLE=$(sh "$ROOT/hack/install-oracle.sh")
HOMEDIR=$(mktemp -d /tmp/cfzt-golden-home.XXXXXX)
trap 'rm -rf "$HOMEDIR"' EXIT

# case_args DIR: prints the command-line arguments of a case, one a line.
case_args() {
  local dir=$1 line inv=0
  local -a extra=()
  if [ -f "$dir/args" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in ''|'#'*) continue ;; esac
      case "$line" in -i|--inventory|--inventory=*|-i?*) inv=1 ;; esac
      extra+=("$line")
    done < "$dir/args"
  fi
  [ $inv -eq 1 ] || printf '%s\n' -i localhost,
  [ ${#extra[@]} -eq 0 ] || printf '%s\n' "${extra[@]}"
  printf '%s\n' playbook.yml
}

# case_env DIR: prints the environment of a case, one KEY=VALUE a line.
case_env() {
  local dir=$1 line
  printf '%s\n' \
    "PATH=/usr/local/bin:/usr/bin:/bin" \
    "HOME=$HOMEDIR" \
    "ANSIBLE_LOCAL_TEMP=$HOMEDIR/.ansible/tmp" \
    "ANSIBLE_NOCOLOR=1" \
    "ANSIBLE_STDOUT_CALLBACK=default" \
    "ANSIBLE_LOCALHOST_WARNING=False" \
    "ANSIBLE_INVENTORY_UNPARSED_WARNING=False" \
    "ANSIBLE_FORKS=1" \
    "LC_ALL=C.UTF-8" \
    "TZ=UTC" \
    "GOLDEN_LOOKUP_VAR=value-from-environment" \
    "GOLDEN_EMPTY_VAR="
  if [ -f "$dir/env" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in ''|'#'*) continue ;; esac
      printf '%s\n' "$line"
    done < "$dir/env"
  fi
}

record() {
  local dir=$1 rc
  local -a args envs
  mapfile -t args < <(case_args "$dir")
  mapfile -t envs < <(case_env "$dir")
  set +e
  (cd "$dir" && env -i "${envs[@]}" timeout 300 "$ORACLE" "${args[@]}" \
    </dev/null >expected.out 2>expected.err)
  rc=$?
  set -e
  echo "$rc" > "$dir/expected.rc"
  printf '%-50s rc=%s\n' "$(basename "$dir")" "$rc"
}

if [ $# -gt 0 ]; then
  for name in "$@"; do record "$CASES/${name%/}"; done
else
  for dir in "$CASES"/*/; do record "${dir%/}"; done
fi
