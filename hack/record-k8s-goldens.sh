#!/bin/sh
# Records the golden outputs of tests/k8s-golden/*.yml.
#
# Each playbook runs against a fresh kube-apiserver (internal/kubetest,
# started by tests/k8s-golden/kubeenv), the connection given as K8S_AUTH_*
# variables. Playbooks are recorded with the reference ansible-playbook
# (ansible-core 2.19 + kubernetes.core 6.1, found by hack/install-oracle.sh),
# except those whose first line is "# golden: cfzt-runner" (they use
# operator_sdk.util.k8s_status, which the reference lacks): those are
# recorded with cfzt-runner built from this tree and must be reviewed by
# hand. Output is normalized (tests/k8s-golden/normalize) into
# tests/k8s-golden/expected/NAME.stdout, the exit status into NAME.rc.
#
# Usage: hack/record-k8s-goldens.sh [NAME.yml ...]
# Environment: CFZT_RUNNER (a prebuilt cfzt-runner), CFZT_KUBE_APISERVER.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR="$ROOT/tests/k8s-golden"
ORACLE=$(sh "$ROOT/hack/install-oracle.sh" | tail -n 1)
CFZT_KUBE_APISERVER=${CFZT_KUBE_APISERVER:-$("$ROOT/hack/build-apiserver.sh" | tail -n 1)}
export CFZT_KUBE_APISERVER
TMP=$(mktemp -d)
KUBEENV_PID=
cleanup() {
  if [ -n "$KUBEENV_PID" ]; then kill "$KUBEENV_PID" 2>/dev/null || true; wait "$KUBEENV_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

(cd "$ROOT" && go build -o "$TMP/kubeenv" ./tests/k8s-golden/kubeenv)
# CFZT_RUNNER may name a prebuilt cfzt-runner; else it is built on demand.
RUNNER=${CFZT_RUNNER:-}

if [ $# -eq 0 ]; then
  set -- $(cd "$DIR" && ls *.yml)
fi
mkdir -p "$DIR/expected"
for book in "$@"; do
  name=${book%.yml}
  rm -f "$TMP/env.sh"
  kubelet=
  # A playbook marked "# kubelet: standin" gets the kubelet stand-in as
  # Node standin's kubelet (exec, logs, cp).
  if grep -q '^# kubelet: standin$' "$DIR/$book"; then kubelet="-kubelet=standin"; fi
  "$TMP/kubeenv" -env "$TMP/env.sh" $kubelet >"$TMP/kubeenv.log" 2>&1 &
  KUBEENV_PID=$!
  i=0
  while [ ! -f "$TMP/env.sh" ]; do
    i=$((i + 1))
    if [ $i -gt 300 ] || ! kill -0 "$KUBEENV_PID" 2>/dev/null; then cat "$TMP/kubeenv.log" >&2; exit 1; fi
    sleep 0.2
  done
  if head -n 1 "$DIR/$book" | grep -q '^# golden: cfzt-runner'; then
    if [ -z "$RUNNER" ]; then
      (cd "$ROOT" && go build -o "$TMP/cfzt-runner" ./cmd/cfzt-runner)
      RUNNER="$TMP/cfzt-runner"
    fi
    runner="$RUNNER"; who=cfzt-runner
  else
    runner="$ORACLE"; who=ansible-playbook
  fi
  rc=0
  (
    . "$TMP/env.sh"
    cd "$DIR"
    ANSIBLE_NOCOLOR=1 KUBECONFIG=/nonexistent "$runner" "$book"
  ) >"$TMP/raw" 2>&1 || rc=$?
  "$TMP/kubeenv" normalize "$DIR" <"$TMP/raw" >"$DIR/expected/$name.stdout"
  echo "$rc" >"$DIR/expected/$name.rc"
  echo "recorded $book with $who (exit $rc)"
  kill "$KUBEENV_PID"
  wait "$KUBEENV_PID" 2>/dev/null || true
  KUBEENV_PID=
done
