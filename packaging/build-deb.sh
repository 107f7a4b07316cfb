#!/usr/bin/env bash
# Builds the Debian package: copies the tree (without build directories) to
# a temporary directory, adds packaging/debian as debian/ and runs
# dpkg-buildpackage. The .deb is written to OUTDIR (default: the current
# directory); its path is printed on the last line.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
outdir=$(realpath "${1:-.}")
tmp=$(mktemp -d /tmp/mai-build-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/mai-agent-0.1.0"
tar -C "$root" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$tmp/mai-agent-0.1.0" -xf -
cp -r "$root/packaging/debian" "$tmp/mai-agent-0.1.0/debian"
(cd "$tmp/mai-agent-0.1.0" && dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1) || {
	echo "build-deb.sh: dpkg-buildpackage failed; its log:" >&2
	tail -40 "$tmp/build.log" >&2
	find "$tmp/mai-agent-0.1.0/debian/tmp" -type f >&2 || true
	exit 1
}
deb=$(ls "$tmp"/mai-agent_*.deb)
cp "$deb" "$outdir/"
echo "$outdir/$(basename "$deb")"
