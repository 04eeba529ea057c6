#!/bin/sh
# An inventory script with _meta.hostvars: run once with --list.
if [ "$1" = "--list" ]; then
cat <<'J'
{
  "all": {"vars": {"ansible_connection": "local", "from_all": "a"}},
  "web": {"hosts": ["w1", "w2"], "vars": {"gv": "web-var"}, "children": ["edge"]},
  "edge": {"hosts": ["e1"]},
  "db": {"hosts": ["d1"], "vars": {"db_port": 5432}},
  "_meta": {"hostvars": {"w1": {"hv": 1, "nested": {"k": [1, 2]}}, "d1": {"hv": "db-host"}}}
}
J
else
  echo "--host must not be called when _meta is given" >&2
  exit 1
fi
