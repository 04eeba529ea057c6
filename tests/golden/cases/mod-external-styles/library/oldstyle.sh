#!/bin/sh
# An old-style module: its arguments arrive as a file of key=value words.
. "$1"
echo "{\"changed\": true, \"greeting\": \"hello $name\", \"check\": \"$_ansible_check_mode\"}"
