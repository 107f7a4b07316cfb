#!/usr/bin/env bash
# Builds the Debian package (packaging/build-deb.sh), installs it with dpkg,
# runs the installed mai-agent --version and config check (/etc/mai), has
# systemd check the installed units offline ('systemd-analyze verify': the
# programs and man pages they name must exist, every directive must parse),
# and purges the package on every exit path. Needs root: skips (77) without
# it unless MAI_REQUIRE_REAL=1.
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
# dpkg_waiting LOG ARGS...: dpkg ARGS, waiting (up to 10 min) while another
# dpkg or apt holds the package database's lock, as apt's
# DPkg::Lock::Timeout does; dpkg itself gives up at once.
dpkg_waiting() {
	log=$1
	shift
	i=0
	while ! dpkg "$@" >"$log" 2>&1; do
		grep -q 'lock' "$log" && [ $i -lt 300 ] || return 1
		sleep 2
		i=$((i + 1))
	done
}
cleanup() {
	dpkg_waiting "$out/purge.log" --purge mai-agent || cat "$out/purge.log" >&2
	rm -rf "$out"
}
trap cleanup EXIT
# The package of this exact tree (its files and its last commit's date, all
# that goes into it) is built once and kept in the cache; a second run of
# the suite on the same tree installs and checks that same package.
cache=${MAI_CACHE_DIR:-/var/cache/mai}/deb
key=$( (tar -C "$root" --exclude='./build*' --exclude=./.git --exclude=./tests/tools/npm/node_modules --sort=name --mtime=@0 \
	--owner=0 --group=0 --numeric-owner -cf - . && git -C "$root" log -1 --format=%aD 2>/dev/null) |
	sha256sum | cut -c1-16)
deb=$(ls "$cache/$key"/mai-agent_*.deb 2>/dev/null | head -n1 || true)
if [ -n "$deb" ]; then
	echo "deb: reusing $deb, built from this same tree"
else
	built=$("$root/packaging/build-deb.sh" "$out" | tail -1)
	rm -rf "$cache"
	mkdir -p "$cache/$key"
	cp "$built" "$cache/$key/"
	deb=$cache/$key/$(basename "$built")
fi
# --no-triggers: the man-db trigger the package's man pages activate
# (mandb -pq, 3.4 CPU-s here, the costliest step of this test) runs once,
# at the purge, for both the install and the purge, instead of at each.
# Meanwhile 'man -w' below finds the pages in the file system, as it does
# for any page not yet in man-db's index.
dpkg_waiting "$out/dpkg.log" -i --no-triggers "$deb" ||
	apt-get -o DPkg::Lock::Timeout=600 -f install -y -q >>"$out/dpkg.log" 2>&1
want=$("$root/packaging/version.sh")
version=$(/usr/bin/mai-agent --version)
[ "$version" = "mai-agent $want" ] || { echo "deb: FAIL: --version said '$version', meson.build says $want" >&2; exit 1; }
[ "$(dpkg-query -W -f='${Version}' mai-agent)" = "$want" ] || {
	echo "deb: FAIL: the package's version is not meson.build's $want" >&2; exit 1; }
check=$(/usr/bin/mai-agent config check)
grep -qx '# effective configuration from /etc/mai' <<<"$check" || {
	echo "deb: FAIL: config check did not read /etc/mai:" >&2; echo "$check" >&2; exit 1; }
grep -q '^  drop_dir: "/var/lib/mai/drop"$' <<<"$check" || {
	echo "deb: FAIL: config check lacks the default drop_dir" >&2; exit 1; }

# The units as installed, checked by systemd itself without a running
# systemd. Any message about them fails the test (verify also exits 0 on
# some warnings).
units=$(dpkg -L mai-agent | grep -E '/systemd/system/(mai-agent|maiaudit)\.service$' || true)
[ "$(echo "$units" | wc -w)" = 2 ] || { echo "deb: FAIL: the package lacks its two units: $units" >&2; exit 1; }
command -v systemd-analyze >/dev/null || { echo "deb: FAIL: systemd-analyze is missing (package systemd)" >&2; exit 1; }
rc=0
# shellcheck disable=SC2086 # two paths without spaces
systemd-analyze verify $units >"$out/verify.log" 2>&1 || rc=$?
if [ $rc -ne 0 ] || grep -qE '(mai-agent|maiaudit)\.service' "$out/verify.log"; then
	echo "deb: FAIL: systemd-analyze verify $units (exit $rc):" >&2
	cat "$out/verify.log" >&2
	exit 1
fi
notify=$(grep -l '^Type=notify$' $units || true)
if [ "${notify##*/}" != mai-agent.service ]; then
	echo "deb: FAIL: mai-agent.service must be Type=notify (readiness through sd_notify)" >&2
	exit 1
fi
if grep -n -- '^ExecStart=.*--allow-other' $units >&2; then
	echo "deb: FAIL: a unit turns allow_other on; it is off by default" >&2
	exit 1
fi
page=$(man -w maiaudit)
text=$(zcat -f "$page")
if ! grep -q "^\.TH MAIAUDIT 1 .*\"mai-agent $want\"" <<<"$text"; then
	echo "deb: FAIL: $page does not carry version $want" >&2
	exit 1
fi
echo "deb: installed $deb; --version, config check, systemd-analyze verify and man pages passed"
