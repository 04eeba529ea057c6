#!/bin/sh
echo '{"changed": false, "from": "a subdirectory of the configured library"}'
