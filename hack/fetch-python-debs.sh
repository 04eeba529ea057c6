#!/usr/bin/env bash
# Fetches the Debian trixie packages of python3 that the python flavour of
# the ansible-operator base image carries (container/Dockerfile.ansible-operator-python,
# `make image-ansible-operator-python`), and unpacks them into a root
# filesystem that internal/image packs as one layer.
#
# The packages, their versions and their SHA-256 sums are pinned in
# hack/python-debs.lock. apt-get checks each download against the signed
# Packages index, and this script checks it against the lock too. The
# .deb files are kept in .cache/python-debs/debs/ (checked against the lock
# at each use), and the result under .cache/python-debs/<key>/, where <key>
# is derived from the lock and this script:
#
#   rootfs/   the packages' data, without documentation, manual pages and
#             translations, with /var/lib/dpkg/status.d/<package> holding
#             each package's control fields (what image scanners read)
#
# Prints the absolute path of rootfs/ on stdout; progress goes to stderr.
# A cached root filesystem is reported at once.
#
#   hack/fetch-python-debs.sh            fetch and unpack the locked packages
#   hack/fetch-python-debs.sh --update   resolve the closure again from the
#                                        mirror's current versions and rewrite
#                                        the lock (then run without --update)
#
# PYTHON_DEBS_CACHE overrides .cache/python-debs (the Docker build uses it).
# It needs apt-get, apt-cache and dpkg-deb (a Debian or Ubuntu build
# machine, or the debian:trixie build stage of the Dockerfile); apt runs
# with its own configuration under the cache directory, so the build
# machine's sources and package state are neither used nor changed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
lock="$root/hack/python-debs.lock"
cache="${PYTHON_DEBS_CACHE:-$root/.cache/python-debs}"

# The closure starts from python3 (the interpreter and its standard
# library). dpkg and debconf are what installs packages, not what runs
# python: the image has no package manager, so they are left out, and so
# are the packages only they need.
roots=(python3)
exclude=(dpkg debconf debconf-2.0 cdebconf)
arch=amd64
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

for tool in apt-get apt-cache dpkg-deb sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || { echo "fetch-python-debs: $tool not found: this needs a Debian or Ubuntu machine" >&2; exit 1; }
done
[[ -r "$keyring" ]] || { echo "fetch-python-debs: $keyring missing: install debian-archive-keyring (it must hold the trixie keys)" >&2; exit 1; }

# apt with a private configuration: trixie, trixie-updates and
# trixie-security, this architecture only, no translations.
aptdir="$cache/apt"
setup_apt() {
	mkdir -p "$aptdir/etc/apt/sources.list.d" "$aptdir/etc/apt/preferences.d" "$aptdir/etc/apt/apt.conf.d" \
		"$aptdir/var/lib/apt/lists/partial" "$aptdir/var/cache/apt/archives/partial" "$aptdir/var/lib/dpkg"
	: >"$aptdir/var/lib/dpkg/status"
	cat >"$aptdir/etc/apt/sources.list.d/trixie.sources" <<-EOF
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: trixie trixie-updates
		Components: main
		Signed-By: $keyring

		Types: deb
		URIs: http://deb.debian.org/debian-security
		Suites: trixie-security
		Components: main
		Signed-By: $keyring
	EOF
	cat >"$aptdir/apt.conf" <<-EOF
		Dir "$aptdir/";
		Dir::State::status "$aptdir/var/lib/dpkg/status";
		Dir::Etc::Parts "$aptdir/etc/apt/apt.conf.d";
		APT::Architecture "$arch";
		APT::Architectures { "$arch"; };
		Acquire::Languages "none";
		APT::Sandbox::User "root";
	EOF
	export APT_CONFIG="$aptdir/apt.conf"
	echo "fetch-python-debs: apt-get update (trixie)" >&2
	apt-get -q update >&2
}

field() { # field PACKAGE NAME: a field of the candidate version's record
	apt-cache show --no-all-versions "$1" | sed -n "s/^$2: //p" | head -n1
}

# update resolves the closure of roots (the first alternative of each
# dependency, the provider of a virtual package, Depends and Pre-Depends
# only) and writes the lock.
update() {
	setup_apt
	declare -A seen=()
	local queue=("${roots[@]}") p dep alt
	for p in "${exclude[@]}"; do seen[$p]=skip; done
	while ((${#queue[@]})); do
		p="${queue[0]}"
		queue=("${queue[@]:1}")
		[[ -n "${seen[$p]:-}" ]] && continue
		if ! apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then
			# A virtual package: its first provider.
			alt="$(apt-cache showpkg "$p" | sed -n '/^Reverse Provides:/,$p' | sed -n '2p' | cut -d' ' -f1)"
			[[ -n "$alt" ]] || { echo "fetch-python-debs: nothing provides $p" >&2; exit 1; }
			seen[$p]=virtual
			queue+=("$alt")
			continue
		fi
		seen[$p]=yes
		while IFS= read -r dep; do
			[[ -n "$dep" ]] || continue
			alt="${dep%%|*}"
			alt="$(echo "$alt" | sed -e 's/([^)]*)//g' -e 's/:any//' -e 's/[[:space:]]//g')"
			[[ -n "${seen[$alt]:-}" ]] || queue+=("$alt")
		done < <(apt-cache show --no-all-versions "$p" | sed -n -e 's/^Pre-Depends: //p' -e 's/^Depends: //p' | tr ',' '\n')
	done
	{
		echo "# Debian trixie ($arch) packages of the python flavour's python3: the closure of"
		echo "# ${roots[*]} without ${exclude[*]}, written by hack/fetch-python-debs.sh --update."
		echo "# package version architecture sha256 size"
		for p in $(printf '%s\n' "${!seen[@]}" | LC_ALL=C sort); do
			[[ "${seen[$p]}" == yes ]] || continue
			printf '%s %s %s %s %s\n' "$p" "$(field "$p" Version)" "$(field "$p" Architecture)" "$(field "$p" SHA256)" "$(field "$p" Size)"
		done
	} >"$lock.tmp"
	mv "$lock.tmp" "$lock"
	echo "fetch-python-debs: wrote $lock" >&2
}

if [[ "${1:-}" == "--update" ]]; then
	update
	exit 0
fi
[[ $# -eq 0 ]] || { echo "usage: $0 [--update]" >&2; exit 2; }

# The key covers the lock and this script (which decides what is pruned);
# internal/image (PythonRootfs) derives the same key to find the result.
key="$(cat "$lock" "$root/hack/fetch-python-debs.sh" | sha256sum | cut -c1-16)"
outdir="$cache/$key"
if [[ -f "$outdir/.complete" ]]; then
	echo "$outdir/rootfs"
	exit 0
fi
debs="$cache/debs"
mkdir -p "$outdir" "$debs"

# Download what is missing or does not match the lock.
need=()
while read -r name version pkgarch sum _; do
	[[ -z "$name" || "$name" == \#* ]] && continue
	deb="$debs/${name}_${version//:/%3a}_${pkgarch}.deb"
	if [[ -f "$deb" ]] && [[ "$(sha256sum "$deb" | cut -d' ' -f1)" == "$sum" ]]; then
		continue
	fi
	need+=("$name=$version")
done <"$lock"
if ((${#need[@]})); then
	setup_apt
	echo "fetch-python-debs: downloading ${#need[@]} packages" >&2
	if ! (cd "$debs" && apt-get -q download "${need[@]}" >&2); then
		echo "fetch-python-debs: a locked version is no longer on the mirror (Debian replaces a version when it publishes a fix); run $0 --update to lock the current ones" >&2
		exit 1
	fi
fi

# Check every .deb against the lock, then unpack.
tmp="$outdir/rootfs.tmp"
rm -rf "$tmp" "$outdir/rootfs" "$outdir/.complete"
mkdir -p "$tmp/var/lib/dpkg/status.d"
while read -r name version pkgarch sum _; do
	[[ -z "$name" || "$name" == \#* ]] && continue
	deb="$debs/${name}_${version//:/%3a}_${pkgarch}.deb"
	[[ -f "$deb" ]] || { echo "fetch-python-debs: apt-get download left no $deb" >&2; exit 1; }
	got="$(sha256sum "$deb" | cut -d' ' -f1)"
	if [[ "$got" != "$sum" ]]; then
		echo "fetch-python-debs: $deb has SHA-256 $got, the lock says $sum" >&2
		exit 1
	fi
	dpkg-deb -x "$deb" "$tmp"
	dpkg-deb -f "$deb" Package Version Architecture Source Maintainer Homepage >"$tmp/var/lib/dpkg/status.d/$name"
done <"$lock"

# What a container that runs python never reads: documentation, manual
# pages, translations, bug-report and lintian metadata, and maintainer
# configuration that only dpkg's scripts use; and glibc's iconv modules
# (gconv, 8 MB), which python's codecs, written in C and Python, never load.
rm -rf "$tmp"/usr/lib/*-linux-gnu/gconv
rm -rf "$tmp/usr/share/doc" "$tmp/usr/share/man" "$tmp/usr/share/info" "$tmp/usr/share/locale" \
	"$tmp/usr/share/lintian" "$tmp/usr/share/bug" "$tmp/usr/share/doc-base" "$tmp/usr/share/bash-completion" \
	"$tmp/usr/share/binfmts" "$tmp/usr/share/pixmaps" "$tmp/usr/share/applications" "$tmp/usr/share/readline"

# Byte-compile the standard library, as Debian's py3compile does when the
# packages are installed, but hash-based and unchecked: every file of the
# image carries the same mtime, and nothing in it changes them. Without
# this, each start of the plugin helper (one per run, so one per
# reconcile) compiles what it imports: about 0.3 s of CPU. The unpacked
# python runs here through its own dynamic loader and libraries, so the
# build machine needs neither root nor python 3.13, only an amd64 CPU.
if [[ "$(uname -m)" != x86_64 ]]; then
	echo "fetch-python-debs: the packages are $arch: byte-compiling them needs an x86_64 build machine" >&2
	exit 1
fi
py="$(readlink -f "$tmp/usr/bin/python3")"
env -u PYTHONDONTWRITEBYTECODE -u PYTHONPATH PYTHONHOME="$tmp/usr" \
	"$tmp/usr/lib64/ld-linux-x86-64.so.2" --library-path "$(echo "$tmp"/usr/lib/*-linux-gnu)" "$py" \
	-m compileall -q --invalidation-mode unchecked-hash -s "$tmp" -p / -x '/(test|idlelib|turtledemo)/' \
	"$tmp/usr/lib/$(basename "$py")" >&2

# Debian's merged /usr (base-files makes these links), and OpenSSL's
# default trust store paths pointing at the image's CA bundle (the openssl
# package makes these), so that ssl.create_default_context() verifies.
for d in bin lib lib64 sbin; do
	[[ -d "$tmp/usr/$d" ]] && ! [[ -e "$tmp/$d" || -L "$tmp/$d" ]] && ln -s "usr/$d" "$tmp/$d"
done
mkdir -p "$tmp/usr/lib/ssl"
ln -sfn /etc/ssl/certs "$tmp/usr/lib/ssl/certs"
ln -sfn /etc/ssl/certs/ca-certificates.crt "$tmp/usr/lib/ssl/cert.pem"
mv "$tmp" "$outdir/rootfs"
: >"$outdir/.complete"
echo "fetch-python-debs: unpacked $(grep -vc '^#' "$lock") packages into $outdir/rootfs" >&2
echo "$outdir/rootfs"
