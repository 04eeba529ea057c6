#!/usr/bin/env bash
# Runs ansible/awx-operator and ansible/eda-server-operator under
# ansible-operator v1.42.0 and under `cfzt-runner operator`, one runtime at
# a time, each on a fresh test cluster (tests/realops), and prints the
# comparison as Markdown (issue 22).
#
#   tests/realops/run.sh AWX_SRC EDA_SRC OSDK_UTIL_SRC OUTDIR [awx|awx-labels|awx-full|eda ...]
#
# AWX_SRC and EDA_SRC are checkouts of the operators (their release tags),
# OSDK_UTIL_SRC one of operator-framework/operator-sdk-ansible-util, which
# is installed into OUTDIR/collections for ansible-operator only. Nothing
# of theirs is copied into this repository. Needs root for `unshare -n`
# (ansible-operator's ports 8888 and 5050 are fixed), CFZT_KUBE_APISERVER,
# CFZT_KUBE_CONTROLLERS and CFZT_ANSIBLE_OPERATOR.
set -euo pipefail
root="${REALOPS_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)}"
awx="$(cd "$1" && pwd -P)"; eda="$(cd "$2" && pwd -P)"; util="$(cd "$3" && pwd -P)"; out="$4"
shift 4
ops=("$@"); [ ${#ops[@]} -gt 0 ] || ops=(awx eda)
mkdir -p "$out"; out="$(cd "$out" && pwd -P)"
: "${CFZT_KUBE_APISERVER:?}" "${CFZT_KUBE_CONTROLLERS:?}" "${CFZT_ANSIBLE_OPERATOR:?}"

coll="$out/collections/ansible_collections/operator_sdk/util"
if [ ! -d "$coll" ]; then
	mkdir -p "$coll"
	cp -r "$util/." "$coll/"
fi
(cd "$root" && nice go build -o "$out/cfzt-runner" ./cmd/cfzt-runner && nice go build -o "$out/realops" ./tests/realops)

# The env of each operator's Dockerfile and config/manager/manager.yaml,
# plus the ansible-core 2.19 switch its older roles need under both.
common=(-env ANSIBLE_DEBUG_LOGS=false -env ANSIBLE_ALLOW_BROKEN_CONDITIONALS=true -arg --reconcile-period=0s -timeout "${REALOPS_TIMEOUT:-5m}")
for op in "${ops[@]}"; do
	case "$op" in
	awx) src="$awx"; cr="$out/awx-cr.yaml"; extra=()
		printf 'apiVersion: awx.ansible.com/v1beta1\nkind: AWX\nmetadata:\n  name: awx-demo\nspec:\n  service_type: nodeport\n' >"$cr" ;;
	awx-labels)
		# The README's CR with one additional label: without one, the
		# postgres StatefulSet's template pipes an empty template lookup,
		# None under ansible-core 2.19, into indent, and both runtimes stop
		# there (awx-operator 2.19.1 predates ansible-core 2.19).
		src="$awx"; cr="$out/awx-labels-cr.yaml"; extra=()
		printf 'apiVersion: awx.ansible.com/v1beta1\nkind: AWX\nmetadata:\n  name: awx-demo\n  labels:\n    tier: demo\nspec:\n  service_type: nodeport\n  additional_labels:\n  - tier\n' >"$cr" ;;
	awx-full)
		# awx-labels, and what keeps the templates of the "Apply Resources"
		# loop from rendering to nothing (None under ansible-core 2.19, a
		# failed item under both runtimes): a pre-stop grace period, a
		# projects claim and an Ingress.
		src="$awx"; cr="$out/awx-full-cr.yaml"; extra=()
		printf 'apiVersion: awx.ansible.com/v1beta1\nkind: AWX\nmetadata:\n  name: awx-demo\n  labels:\n    tier: demo\nspec:\n  service_type: nodeport\n  additional_labels:\n  - tier\n  termination_grace_period_seconds: 30\n  projects_persistence: true\n  ingress_type: ingress\n  hostname: awx.example.com\n' >"$cr" ;;
	eda) src="$eda"; cr="$out/eda-cr.yaml"; extra=(-env ANSIBLE_VERBOSITY=0)
		# README.md's "eda.yaml" (eda-demo.yml lacks the URL the CRD
		# requires since 1.0).
		printf 'apiVersion: eda.ansible.com/v1alpha1\nkind: EDA\nmetadata:\n  name: my-eda\nspec:\n  automation_server_url: https://awx-host\n' >"$cr" ;;
	*) echo "unknown operator $op" >&2; exit 2 ;;
	esac
	for rt in ${REALOPS_RUNTIMES:-ansible-operator cfzt}; do
		echo "== $op under $rt" >&2
		unshare -n sh -c 'ip link set lo up && exec nice "$@"' sh "$out/realops" run -src "$src" -runtime "$rt" -cr "$cr" \
			-out "$out/$op-$rt.json" -cfzt-runner "$out/cfzt-runner" -ansible-operator "$CFZT_ANSIBLE_OPERATOR" \
			-collections "$out/collections" "${common[@]}" "${extra[@]}" || echo "realops: $op under $rt: exit $?" >&2
	done
	"$out/realops" compare "$out/$op-ansible-operator.json" "$out/$op-cfzt.json" >"$out/$op.md" || true
done
