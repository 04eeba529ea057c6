#!/usr/bin/python
# An old-style Python module: key=value arguments in a file.
import shlex
import sys

with open(sys.argv[1]) as f:
    words = shlex.split(f.read())
args = dict(w.split("=", 1) for w in words)
print('{"changed": false, "size": "%s", "debug": "%s"}' % (args["size"], args["_ansible_debug"]))
print("trailing junk")
