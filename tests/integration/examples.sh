#!/bin/sh
# Every script in examples/scripts/ says on its first line which level
# 'mai-agent check' gives it ("# expect: level X, ..."); this holds the
# examples to that promise, plus one rejected file generated here (invalid
# UTF-8, which check reports as BLOCKED) so no binary file is committed.
set -u
AGENT=${MAI_AGENT:?MAI_AGENT must name the mai-agent binary}
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-examples.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
n=0
# One check of all of them (each file is assessed on its own, and says so
# in its "FILE: level" line): with the shipped configuration every check
# starts Bandit, 0.2 CPU-s a start.
"$AGENT" check --config-dir "$SRC/config" "$SRC"/examples/scripts/*.py > "$T/check.out"
for f in "$SRC"/examples/scripts/*.py; do
	want=$(sed -n '1s/^# expect: level \([A-Z]*\),.*/\1/p' "$f")
	if [ -z "$want" ]; then
		echo "FAIL: $f: first line must be '# expect: level LEVEL, ...'" >&2
		fails=$((fails + 1))
		continue
	fi
	got=$(awk -v p="$f: level " 'index($0, p) == 1' "$T/check.out" |
		sed -n 's/^.*: level \(LOW\|MEDIUM\|HIGH\|BLOCKED\), score.*/\1/p')
	if [ "$got" != "$want" ]; then
		echo "FAIL: $f: check says '$got', its header says '$want'" >&2
		fails=$((fails + 1))
	fi
	n=$((n + 1))
done
[ $n -ge 8 ] || { echo "FAIL: only $n example scripts found" >&2; fails=$((fails + 1)); }

# Invalid UTF-8: rejected by the agent, BLOCKED with the byte offset in check.
printf 'print("caf\351")\n' > "$T/rejected_latin1.py"
out=$("$AGENT" check --config-dir "$SRC/config" "$T/rejected_latin1.py")
rc=$?
[ $rc -eq 12 ] || { echo "FAIL: invalid UTF-8: check exited $rc, expected 12" >&2; fails=$((fails + 1)); }
case $out in
*"rejected_latin1.py:1:11: error: rejected at byte 10: invalid UTF-8"*"level BLOCKED"*) ;;
*) echo "FAIL: invalid UTF-8: unexpected report: $out" >&2; fails=$((fails + 1)) ;;
esac
[ $fails -eq 0 ] || exit 1
echo "ok: $n examples and the generated rejected file match their stated level"
