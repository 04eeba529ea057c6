#!/bin/sh
# WANT_JSON
echo '{"changed": true, "msg": "hammered from a collection"}'
