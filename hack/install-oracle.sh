#!/bin/sh
# Installs the reference Ansible (ansible-core 2.19 with the ansible 12
# collections, from Debian trixie) into DIR without touching the system's
# packages, and prints the path of its ansible-playbook. Pure-Python
# libraries that collection plugins import (jmespath for json_query) come
# from trixie too, into the same private root. Used to re-record
# golden files and for benchmarks; never needed by `make test`.
set -eu
DIR=${1:-${HOME}/.cache/ansible-oracle}
BIN="$DIR/bin/ansible-playbook"
SITE="$DIR/root/usr/lib/python3/dist-packages"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q 'core 2.19' && [ -d "$SITE/jmespath" ]; then echo "$BIN"; exit 0; fi
mkdir -p "$DIR/apt/lists/partial" "$DIR/debs" "$DIR/root" "$DIR/bin"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" > "$DIR/apt/sources.list"
APT="-o Dir::Etc::SourceList=$DIR/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$DIR/apt/lists -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $APT update >/dev/null
# shellcheck disable=SC2086
( cd "$DIR/debs" && apt-get $APT download ansible-core ansible python3-jmespath >/dev/null )
for d in "$DIR"/debs/*.deb; do dpkg -x "$d" "$DIR/root"; done
if [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq python3-jinja2 python3-yaml python3-cryptography python3-packaging \
    python3-resolvelib python3-kubernetes python3-jsonpatch python3-netaddr >/dev/null 2>&1 || true
fi
for tool in ansible-playbook ansible ansible-doc ansible-config; do
  cat > "$DIR/bin/$tool" <<W
#!/bin/sh
export PYTHONPATH="$SITE\${PYTHONPATH:+:\$PYTHONPATH}"
export ANSIBLE_COLLECTIONS_PATH="$SITE/ansible_collections"
export ANSIBLE_PYTHON_INTERPRETER="\${ANSIBLE_PYTHON_INTERPRETER:-/usr/bin/python3}"
exec /usr/bin/python3 "$DIR/root/usr/bin/$tool" "\$@"
W
  chmod +x "$DIR/bin/$tool"
done
echo "$BIN"
