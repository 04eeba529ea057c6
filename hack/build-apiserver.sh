#!/usr/bin/env bash
# Builds the test kube-apiserver (kube-apiserver v1.36.3 with an embedded etcd,
# see internal/kubetest/apiserver) once and caches it under
# .cache/kube-apiserver/<key>/kube-apiserver, where <key> is derived from the
# module's go.mod, go.sum and main.go, the Go version and the build flags.
#
# Prints the absolute path of the binary on stdout; progress goes to stderr.
# A cached binary is reported immediately. A cold build takes 5-11 minutes
# and about 2.5 GB of RAM and downloads about 900 MB of modules.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
src="$root/internal/kubetest/apiserver"

version="v1.36.3"
major="1"
minor="36"
# Never change these flags casually: other flags invalidate the Go build cache
# (about 2 GB) and force a cold build.
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=${major} -X k8s.io/component-base/version.gitMinor=${minor}"
buildflags="-trimpath"

export GOWORK=off
export GOFLAGS="-mod=readonly -buildvcs=false"
export CGO_ENABLED=0

command -v go >/dev/null 2>&1 || { echo "build-apiserver: go not found in PATH" >&2; exit 1; }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum | cut -d' ' -f1
	else
		shasum -a 256 | cut -d' ' -f1
	fi
}

goversion="$(cd "$src" && go env GOVERSION)"
goos="$(cd "$src" && go env GOOS)"
goarch="$(cd "$src" && go env GOARCH)"
key="$(
	{
		cat "$src/go.mod" "$src/go.sum" "$src/main.go"
		printf '%s\n' "$goversion" "$goos/$goarch" "CGO_ENABLED=$CGO_ENABLED" "$buildflags" "$ldflags"
	} | sha256 | cut -c1-16
)"

outdir="$root/.cache/kube-apiserver/$key"
bin="$outdir/kube-apiserver"

if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$outdir"

# Serialise concurrent builds (parallel test packages) where flock exists;
# without it, the atomic rename below still keeps the result correct.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$outdir/.lock"
	flock 9
	if [[ -x "$bin" ]]; then
		echo "$bin"
		exit 0
	fi
fi

echo "build-apiserver: building kube-apiserver $version ($goversion, key $key); seconds with a warm Go build cache, 5-11 minutes cold" >&2
start=$(date +%s)
tmp="$outdir/kube-apiserver.tmp.$$"
trap 'rm -f "$tmp"' EXIT
(cd "$src" && go build $buildflags -ldflags "$ldflags" -o "$tmp" .) >&2
mv -f "$tmp" "$bin"
trap - EXIT
echo "build-apiserver: built $bin in $(($(date +%s) - start))s" >&2

# Drop binaries built from other inputs (about 110 MB each). A process still
# running an old binary keeps it open, so removing it is safe.
for old in "$root/.cache/kube-apiserver"/*/; do
	[[ "${old%/}" == "$outdir" ]] || rm -rf "${old%/}"
done
echo "$bin"
