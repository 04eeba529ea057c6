#!/bin/sh
# WANT_JSON
# The arguments arrive as a JSON file named by the first argument.
case "$(cat "$1")" in
  *'"name": "json"'*) echo '{"changed": false, "seen": "json args", "msg": "read it"}' ;;
  *) echo '{"failed": true, "msg": "no json args"}' ;;
esac
