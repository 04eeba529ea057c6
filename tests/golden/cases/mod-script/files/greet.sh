#!/bin/sh
echo "${GREETING:-hi} [$1] [$2] in $(pwd)"
echo "shell: $(basename "$BASH")" >&2
