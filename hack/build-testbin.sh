#!/usr/bin/env bash
# Builds one of the optional test-cluster binaries that sit next to the test
# kube-apiserver (see internal/kubetest/README.md) and caches it under
# .cache/<name>/<key>/<name>, where <key> hashes the module's go.mod, go.sum and
# Go sources, the Go version and the build flags.
#
#   hack/build-testbin.sh kube-controllers   # kube-controller-manager + kube-scheduler
#                                            # (internal/kubetest/controllers)
#   hack/build-testbin.sh kwok               # the KWOK controller (internal/kubetest/kwok)
#
# Prints the absolute path of the binary on stdout; progress goes to stderr.
# A cached binary is reported immediately. hack/build-apiserver.sh is separate
# and unchanged, so the apiserver's cache key does not move.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"

name="${1:-}"
case "$name" in
kube-controllers)
	src="$root/internal/kubetest/controllers"
	# Same release and the same version stamp as hack/build-apiserver.sh.
	version="v1.36.3"
	ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36"
	pkg="."
	cold="4-10 minutes"
	;;
kwok)
	src="$root/internal/kubetest/kwok"
	ldflags="-s -w"
	# The module has no code of its own: go.mod names KWOK's command as a tool.
	pkg="sigs.k8s.io/kwok/cmd/kwok"
	cold="2-4 minutes"
	;;
*)
	echo "usage: hack/build-testbin.sh kube-controllers|kwok" >&2
	exit 2
	;;
esac
# Never change these flags casually: other flags invalidate the Go build cache
# shared with the apiserver build and force a cold build.
buildflags="-trimpath"

export GOWORK=off
# A caller's GOFLAGS (e.g. -p=1 on a shared machine) are kept after ours.
export GOFLAGS="-mod=readonly -buildvcs=false${GOFLAGS:+ $GOFLAGS}"
export CGO_ENABLED=0

command -v go >/dev/null 2>&1 || { echo "build-testbin: go not found in PATH" >&2; exit 1; }

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
		cat "$src/go.mod" "$src/go.sum"
		shopt -s nullglob
		for f in "$src"/*.go; do
			[[ "$f" == *_test.go ]] && continue
			printf '%s\n' "${f##*/}"
			cat "$f"
		done
		printf '%s\n' "$goversion" "$goos/$goarch" "CGO_ENABLED=$CGO_ENABLED" "$buildflags" "$ldflags" "$pkg"
	} | sha256 | cut -c1-16
)"

outdir="$root/.cache/$name/$key"
bin="$outdir/$name"

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

echo "build-testbin: building $name ($goversion, key $key); seconds with a warm Go build cache, $cold cold" >&2
start=$(date +%s)
tmp="$outdir/$name.tmp.$$"
trap 'rm -f "$tmp"' EXIT
(cd "$src" && go build $buildflags -ldflags "$ldflags" -o "$tmp" "$pkg") >&2
mv -f "$tmp" "$bin"
trap - EXIT
echo "build-testbin: built $bin in $(($(date +%s) - start))s" >&2

# Drop binaries built from other inputs. A process still running an old
# binary keeps it open, so removing it is safe.
for old in "$root/.cache/$name"/*/; do
	[[ "${old%/}" == "$outdir" ]] || rm -rf "${old%/}"
done
echo "$bin"
