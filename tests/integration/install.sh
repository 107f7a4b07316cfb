#!/bin/sh
# meson install into a scratch DESTDIR, twice (issue 8 point 1): the programs,
# the systemd units, the man pages and the default configuration land where
# they belong; on the second install a configuration file the operator
# edited stays as it is and the new default goes beside it as FILE.dist,
# while an unedited one is simply current (no .dist).
set -u
B=${MAI_BUILD_ROOT:?MAI_BUILD_ROOT must name the build directory}
S=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

prefix=$(meson introspect --buildoptions "$B" |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
root=$T/root$prefix
meson install -C "$B" --no-rebuild --destdir "$T/root" > "$T/install1.log" 2>&1 ||
	{ cat "$T/install1.log" >&2; echo "FAIL: meson install" >&2; exit 1; }
etc=$(find "$T/root" -type d -path '*/etc/mai' | head -n1)
[ -n "$etc" ] || { echo "FAIL: no etc/mai under the install root" >&2; exit 1; }
for f in bin/mai-agent bin/maiaudit lib/systemd/system/mai-agent.service \
	lib/systemd/system/maiaudit.service share/man/man1/mai-agent.1 share/man/man1/maiaudit.1 \
	share/man/man5/mai-agent-config.5; do
	[ -e "$root/$f" ] || fail "meson install did not install $f"
done
for f in agent security sandbox audit; do
	cmp -s "$S/config/$f.yaml" "$etc/$f.yaml" || fail "$f.yaml is not the shipped default"
done

# The operator edits agent.yaml; a second install keeps the edit.
printf '# edited by the operator\nworkers: 3\n' > "$etc/agent.yaml"
meson install -C "$B" --no-rebuild --destdir "$T/root" > "$T/install2.log" 2>&1 ||
	{ cat "$T/install2.log" >&2; echo "FAIL: second meson install" >&2; exit 1; }
grep -q '^workers: 3$' "$etc/agent.yaml" || fail "the second install overwrote the edited agent.yaml"
cmp -s "$S/config/agent.yaml" "$etc/agent.yaml.dist" ||
	fail "the new default is not beside the edited file as agent.yaml.dist"
[ ! -e "$etc/security.yaml.dist" ] || fail "an unedited security.yaml got a .dist beside it"

if [ $fails -ne 0 ]; then
	exit 1
fi
echo "install: all checks passed"
