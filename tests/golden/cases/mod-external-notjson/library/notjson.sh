#!/bin/sh
echo "this is not json"
echo "and it said so on stderr" >&2
exit 3
