#!/usr/bin/env bash
# Builds the Debian package (packaging/build-deb.sh), installs it with dpkg,
# runs the installed mai-agent --version and config check (/etc/mai), and
# purges the package on every exit path. Needs root: skips (77) without it
# unless MAI_REQUIRE_REAL=1.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "deb: needs root to install the package"
	[ "${MAI_REQUIRE_REAL:-}" = 1 ] && exit 1
	exit 77
fi
if dpkg-query -W -f='${Status}' mai-agent 2>/dev/null | grep -q installed; then
	echo "deb: FAIL: mai-agent is already installed; not touching it" >&2
	exit 1
fi
out=$(mktemp -d /tmp/mai-deb-test.XXXXXX)
cleanup() {
	dpkg --purge mai-agent >"$out/purge.log" 2>&1 || cat "$out/purge.log" >&2
	rm -rf "$out"
}
trap cleanup EXIT
deb=$("$root/packaging/build-deb.sh" "$out" | tail -1)
dpkg -i "$deb" >"$out/dpkg.log" 2>&1 || apt-get -f install -y -q >>"$out/dpkg.log" 2>&1
version=$(/usr/bin/mai-agent --version)
[ "$version" = "mai-agent 0.1.0" ] || { echo "deb: FAIL: --version said '$version'" >&2; exit 1; }
check=$(/usr/bin/mai-agent config check)
grep -qx '# effective configuration from /etc/mai' <<<"$check" || {
	echo "deb: FAIL: config check did not read /etc/mai:" >&2; echo "$check" >&2; exit 1; }
grep -q '^  drop_dir: "/var/lib/mai/drop"$' <<<"$check" || {
	echo "deb: FAIL: config check lacks the default drop_dir" >&2; exit 1; }
echo "deb: installed $deb; --version and config check passed"
