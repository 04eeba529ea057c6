#!/bin/sh
echo '{"changed": false, "ping": "library pong", "location": "library"}'
