#!/bin/sh
# Records ansible-doc's output that doc_test.go compares cfzt-runner doc's
# layout with, from the oracle (hack/install-oracle.sh). Run from this
# directory: ./record.sh
set -eu
bin=${ANSIBLE_ORACLE_BIN:-$HOME/.cache/ansible-oracle/bin}
export ANSIBLE_NOCOLOR=1
for m in ping stat getent; do
	"$bin/ansible-doc" "$m" </dev/null | sed '1s/ (.*)$/ (PATH)/' >"ansible-doc-$m.txt"
done
"$bin/ansible-doc" -l ansible.builtin </dev/null >ansible-doc-l-builtin.txt
