#!/usr/bin/env bash
# Builds the Debian package: copies the tree (without build directories) to
# a temporary directory, adds packaging/debian as debian/ with a changelog
# entry for the version in meson.build (packaging/version.sh) and runs
# dpkg-buildpackage. The .deb is written to OUTDIR (default: the current
# directory); its path is printed on the last line.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
outdir=$(realpath "${1:-.}")
version=$("$root/packaging/version.sh")
[ -n "$version" ] || { echo "build-deb.sh: no version from packaging/version.sh (meson.build)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/mai-build-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/mai-agent-$version
mkdir "$src"
tar -C "$root" --exclude='./build*' --exclude=./.git --exclude=./tests/tools/npm/node_modules -cf - . | tar -C "$src" -xf -
cp -r "$root/packaging/debian" "$src/debian"
# The date of the last commit when there is one, so a rebuild of the same
# tree gives the same package.
date=$(git -C "$root" log -1 --format=%aD 2>/dev/null || date -R)
cat > "$src/debian/changelog" <<CHANGES
mai-agent ($version) unstable; urgency=medium

  * Built from the source tree; its git log lists the changes.

 -- Mai agent developers <mai-agent@localhost>  $date
CHANGES
(cd "$src" && dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1) || {
	echo "build-deb.sh: dpkg-buildpackage failed; its log:" >&2
	tail -40 "$tmp/build.log" >&2
	find "$src/debian/tmp" -type f >&2 || true
	exit 1
}
deb=$(ls "$tmp"/mai-agent_*.deb)
cp "$deb" "$outdir/"
echo "$outdir/$(basename "$deb")"
