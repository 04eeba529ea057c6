#!/bin/sh
# Installs operator-sdk's ansible-operator, built from the Go module proxy,
# and ansible-runner (Debian trixie packages, unpacked with dpkg -x) next to
# the reference Ansible of hack/install-oracle.sh, into DIR, without touching
# the system's packages. Prints DIR/bin, which holds ansible-operator and the
# ansible-runner and ansible-playbook wrappers it runs: put it first on PATH.
# Used by `make bench` (the ansible-operator scenario); never by `make test`.
#
#   hack/install-ansible-operator.sh [DIR]   (default ~/.cache/ansible-operator)
#
# ANSIBLE_OPERATOR_VERSION picks the ansible-operator-plugins release
# (default v1.42.0); ORACLE_DIR is passed on to hack/install-oracle.sh.
set -eu
VERSION=${ANSIBLE_OPERATOR_VERSION:-v1.42.0}
DIR=${1:-${HOME}/.cache/ansible-operator}
HERE=$(cd "$(dirname "$0")" && pwd)
MODULE=github.com/operator-framework/ansible-operator-plugins

ORACLE_BIN=$(sh "$HERE/install-oracle.sh" ${ORACLE_DIR:+"$ORACLE_DIR"} | tail -n 1)
ORACLE=$(dirname "$(dirname "$ORACLE_BIN")")
ORACLE_SITE="$ORACLE/root/usr/lib/python3/dist-packages"
SITE="$DIR/root/usr/lib/python3/dist-packages"
STAMP="$DIR/installed-$VERSION"

# Wrappers: ansible-runner, and the Ansible commands it starts, on the
# system's python3 with both unpacked trees on its path. The oracle's
# collections come after the caller's ANSIBLE_COLLECTIONS_PATH (e.g.
# bench/ansible-shims). Each is written beside and renamed into place, so
# that a run using the old one is not disturbed.
wrap() { # NAME SCRIPT
  cat > "$DIR/bin/.$1.new" <<W
#!/bin/sh
export PYTHONPATH="$SITE:$ORACLE_SITE\${PYTHONPATH:+:\$PYTHONPATH}"
export ANSIBLE_COLLECTIONS_PATH="\${ANSIBLE_COLLECTIONS_PATH:+\$ANSIBLE_COLLECTIONS_PATH:}$ORACLE_SITE/ansible_collections"
export ANSIBLE_PYTHON_INTERPRETER="\${ANSIBLE_PYTHON_INTERPRETER:-/usr/bin/python3}"
exec /usr/bin/python3 "$2" "\$@"
W
  chmod +x "$DIR/bin/.$1.new"
  mv -f "$DIR/bin/.$1.new" "$DIR/bin/$1"
}
write_wrappers() {
  mkdir -p "$DIR/bin"
  wrap ansible-runner "$DIR/root/usr/bin/ansible-runner"
  for tool in ansible-playbook ansible ansible-config ansible-galaxy; do
    wrap "$tool" "$ORACLE/root/usr/bin/$tool"
  done
}
if [ -f "$STAMP" ] && [ -f "$DIR/versions" ] && [ -x "$DIR/bin/ansible-operator" ]; then
  write_wrappers # cheap, and keeps them in step with this script
  if "$DIR/bin/ansible-runner" --version >/dev/null 2>&1; then echo "$DIR/bin"; exit 0; fi
fi
mkdir -p "$DIR/apt/lists/partial" "$DIR/debs" "$DIR/root" "$DIR/bin"

# ansible-runner and the Python packages it needs that Debian 12's python3
# lacks (pexpect, python-daemon), plus requests-unixsocket for the event
# plugin below. PyYAML, packaging and requests come from the system; the
# kubernetes client from hack/install-oracle.sh.
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" > "$DIR/apt/sources.list"
APT="-o Dir::Etc::SourceList=$DIR/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$DIR/apt/lists -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $APT update >/dev/null
# shellcheck disable=SC2086
( cd "$DIR/debs" && apt-get $APT download python3-ansible-runner python3-pexpect python3-ptyprocess \
    python3-daemon python3-lockfile python3-requests-unixsocket >/dev/null )
for d in "$DIR"/debs/*.deb; do dpkg -x "$d" "$DIR/root"; done

# ansible-operator itself, from the module's own go.mod and go.sum (the
# proxy serves the release's zip; `go install pkg@version` needs its version
# list, which it does not serve). The module cache is read-only, so the
# build runs in a copy.
MODDIR=$(cd "$DIR" && GOFLAGS=-mod=mod GONOSUMDB=github.com/operator-framework go mod download -json "$MODULE@$VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
[ -d "$MODDIR" ] || { echo "install-ansible-operator: go mod download $MODULE@$VERSION failed" >&2; exit 1; }
SRC=$(mktemp -d)
trap 'rm -rf "$SRC"' EXIT
cp -R "$MODDIR/." "$SRC"
chmod -R u+w "$SRC"
( cd "$SRC" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-X $MODULE/internal/version.Version=$VERSION -X $MODULE/internal/version.GitVersion=$VERSION" \
    -o "$DIR/bin/ansible-operator" ./cmd/ansible-operator )

# ansible-operator receives the run's events from ansible-runner's "http"
# event plugin, which its image installs from the module's
# images/ansible-operator/ansible_runner_http. ansible-runner finds plugins
# by their entry point, so the package gets minimal distribution metadata.
rm -rf "$SITE/ansible_runner_http"
cp -R "$MODDIR/images/ansible-operator/ansible_runner_http/ansible_runner_http" "$SITE/"
chmod -R u+w "$SITE/ansible_runner_http"
META="$SITE/ansible_operator_http_events-1.0.0.dist-info"
mkdir -p "$META"
printf 'Metadata-Version: 2.1\nName: ansible-operator-http-events\nVersion: 1.0.0\n' > "$META/METADATA"
printf '[ansible_runner.plugins]\nhttp = ansible_runner_http\n' > "$META/entry_points.txt"

write_wrappers
"$DIR/bin/ansible-runner" --version >/dev/null
"$DIR/bin/ansible-operator" version >/dev/null
# Debian's ansible-runner reports 0.0.0 as its own version; record the
# package's.
RUNNER_VERSION=$(dpkg-deb -f "$DIR"/debs/python3-ansible-runner_*.deb Version)
printf 'ansible-operator %s (%s, built from the Go module proxy with %s), ansible-runner %s (Debian trixie), %s\n' \
  "$VERSION" "$MODULE" "$(go env GOVERSION)" "$RUNNER_VERSION" "$("$DIR/bin/ansible-playbook" --version | head -n 1)" > "$DIR/versions"
touch "$STAMP"
echo "$DIR/bin"
