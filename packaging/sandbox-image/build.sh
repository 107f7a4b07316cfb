#!/usr/bin/env bash
# Builds the default sandbox image offline from Debian packages:
#   debootstrap (minbase + python3-minimal) -> trim -> tar -> import through
#   the Docker Engine API (POST /images/create?fromSrc=-).
# Tags: mai-sandbox:<first 12 hex of sha256(recipe.env + trim.sh)> and
# mai-sandbox:latest. Does nothing when the hash-tagged image exists.
# --variant pip builds the image of the network allowlist mode from
# recipe-pip.env instead (adds Debian's python3-pip), tagged
# mai-sandbox-pip:<hash> and mai-sandbox-pip:latest the same way;
# --variant proxy the filtering proxy's image for Swarm nodes from
# recipe-proxy.env (tinyproxy, no Python), mai-sandbox-proxy:<hash>.
# The debootstrap tarball is cached (MAI_CACHE_DIR, default /var/cache/mai) so
# that a rebuild after the image was removed needs no download.
#
# Environment: DOCKER_SOCKET (default /var/run/docker.sock),
#              MAI_CACHE_DIR (default /var/cache/mai), MAI_IMAGE_REPO
#              (default mai-sandbox, or mai-sandbox-pip / mai-sandbox-proxy
#              for --variant pip / proxy).
# Options: --variant pip|proxy; --print-tag prints the tag and exits;
#          --print-cache prints the path of the cached root filesystem
#          tarball (which may not exist yet) and exits.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
socket=${DOCKER_SOCKET:-/var/run/docker.sock}
cache=${MAI_CACHE_DIR:-/var/cache/mai}
recipe=$here/recipe.env
default_repo=mai-sandbox
cache_name=sandbox
print_tag=0
print_cache=0
while [ $# -gt 0 ]; do
	case $1 in
	--variant)
		case ${2:-} in
		pip | proxy) ;;
		*) echo "build.sh: --variant takes 'pip' or 'proxy'" >&2; exit 2 ;;
		esac
		recipe=$here/recipe-$2.env
		default_repo=mai-sandbox-$2
		cache_name=sandbox-$2
		shift 2 ;;
	--print-tag) print_tag=1; shift ;;
	--print-cache) print_cache=1; shift ;;
	*) echo "build.sh: unknown argument '$1' (--variant pip|proxy, --print-tag, --print-cache)" >&2; exit 2 ;;
	esac
done
repo=${MAI_IMAGE_REPO:-$default_repo}

hash=$(cat "$recipe" "$here/trim.sh" | sha256sum | cut -c1-12)
tag="$repo:$hash"
tarball="$cache/$cache_name-$hash.tar"
if [ "$print_tag" = 1 ]; then
	echo "$tag"
	exit 0
fi
if [ "$print_cache" = 1 ]; then
	echo "$tarball"
	exit 0
fi

step() { echo "build.sh: [$1/4] $2"; }
die() { echo "build.sh: error: $*" >&2; exit 1; }

api() { # METHOD PATH [curl args...]; prints the body, fails on HTTP >= 400
	local method=$1 path=$2
	shift 2
	curl -sS --fail-with-body --unix-socket "$socket" -X "$method" "http://docker$path" "$@"
}

curl -sS --max-time 5 --unix-socket "$socket" http://docker/_ping >/dev/null 2>&1 ||
	die "Docker not reachable at unix://$socket: run packaging/ensure-docker.sh or set DOCKER_SOCKET"

if api GET "/images/$tag/json" >/dev/null 2>&1; then
	# Keep :latest pointing at the current recipe even when someone retagged it.
	api POST "/images/$tag/tag?repo=$repo&tag=latest" >/dev/null
	echo "build.sh: $tag exists; nothing to build (tagged $repo:latest)"
	exit 0
fi

# What the image must have (the recipe may say otherwise).
CHECK=usr/bin/python3
# shellcheck source=recipe.env
. "$recipe"
mkdir -p "$cache"

if [ -s "$tarball" ]; then
	step 1 "debootstrap: using the cached root filesystem $tarball"
	step 2 "trim: done when the cache was made"
else
	command -v debootstrap >/dev/null || die "debootstrap is missing: run packaging/install-deps.sh"
	work=$(mktemp -d "$cache/rootfs.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	step 1 "debootstrap --variant=$VARIANT --include=$INCLUDE $SUITE from $MIRROR (a few minutes the first time)"
	# debootstrap prints one line per stage (I: Retrieving, Validating,
	# Extracting, Installing, Configuring): that is the progress shown.
	debootstrap --variant="$VARIANT" --include="$INCLUDE" "$SUITE" "$work/root" "$MIRROR" ||
		die "debootstrap failed; see $work/root/debootstrap/debootstrap.log"
	step 2 "trim: apt lists, docs, man pages, locales"
	"$here/trim.sh" "$work/root"
	[ -x "$work/root/$CHECK" ] || die "the image has no /$CHECK; check INCLUDE in $recipe"
	tar --numeric-owner -C "$work/root" -cf "$tarball.tmp" .
	mv "$tarball.tmp" "$tarball"
	rm -rf "$work"
	trap - EXIT
fi

step 3 "import $(du -h "$tarball" | cut -f1) into Docker as $tag"
api POST "/images/create?fromSrc=-&repo=$repo&tag=$hash" \
	-H 'Content-Type: application/x-tar' -T "$tarball" >/dev/null ||
	die "import failed (Docker's reply above)"
step 4 "tag $repo:latest"
api POST "/images/$tag/tag?repo=$repo&tag=latest" >/dev/null
id=$(api GET "/images/$tag/json" | sed -n 's/.*"Id":"\([^"]*\)".*/\1/p')
echo "build.sh: built $tag ($id)"
