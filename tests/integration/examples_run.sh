#!/bin/sh
# Every script in examples/scripts/ through a real agent (real inotify, real
# Docker): the state, verdict and exit code its first line promises
# ("# expect: level X, state S[, verdict V][, exit code N]") must be what
# its result.json says, 'mai-agent submit' must exit accordingly (0 clean
# exit, 1 any other completed run, 6 held), and every sidecar must match
# schemas/. Small limits (sandbox.yaml below) keep the timeout, OOM and
# output-limit cases to a few seconds. Exit 77 when Docker or the sandbox
# image is not usable, a failure instead when MAI_REQUIRE_REAL=1.
#
# MAI_DROP_MODE=mount runs the same through the agent's FUSE mount of the
# drop directory (drop_mode: mount; submit then waits on .wait/), and each
# result must name the writing process as learnt from the request.
set -u
AGENT=${MAI_AGENT:?MAI_AGENT must name the mai-agent binary}
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}
W=$(mktemp -d "${TMPDIR:-/tmp}/mai-examples-run.XXXXXX")
fails=0
. "$SRC/tests/integration/agent_start.sh"
cleanup() {
	agent_stop
	rm -rf "$W"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

MODE=${MAI_DROP_MODE:-watch}
agent_setup "$W" || exit 1
echo "drop_mode: $MODE" >> "$W/conf/agent.yaml"
# The examples rely on the limits being hit: a 10 s timeout, 64 MiB of
# memory and 64 KiB of output instead of the defaults (30 s, 512 MiB, 1 MiB).
# The timeout leaves room for a loaded machine (a Python that starts,
# fills 64 MiB or prints 64 KiB in a container beside the other tests);
# only timeout_sleep.py waits for it, while the rest of the suite runs.
cat >> "$W/conf/sandbox.yaml" <<'YAML'
stdout_max: 64k
stderr_max: 64k
trusted:
  timeout: 10s
  memory: 64m
  scale: false
standard:
  timeout: 20s
  scale: false
YAML
agent_start "$W"
rc=$?
if [ $rc -ne 0 ]; then
	if [ $rc -eq 4 ] && [ "${MAI_REQUIRE_REAL:-0}" != 1 ]; then
		echo "SKIP: Docker or the sandbox image is not usable for the agent" >&2
		exit 77
	fi
	echo "FAIL: the agent did not start (exit $rc)" >&2
	cat "$W/agent.log" >&2
	exit 1
fi

# All at once (the agent runs two at a time): submit waits for each answer
# (MAI_SUBMIT_TIMEOUT seconds: swarm.sh gives Swarm's slower runs longer).
n=0
for f in "$SRC"/examples/scripts/*.py; do
	name=$(basename "$f" .py)
	"$AGENT" submit --timeout "${MAI_SUBMIT_TIMEOUT:-90}" "$f" > "$W/$name.submit" 2>&1 &
	echo "$name $!" >> "$W/submits"
	n=$((n + 1))
done
[ $n -ge 8 ] || fail "only $n example scripts found"

while read -r name pid; do
	wait "$pid"
	rc=$?
	header=$(head -1 "$SRC/examples/scripts/$name.py")
	state=$(printf '%s\n' "$header" | sed -n 's/^# expect: .*state \([a-z_]*\).*/\1/p')
	verdict=$(printf '%s\n' "$header" | sed -n 's/^# expect: .*verdict \([a-z_]*\).*/\1/p')
	code=$(printf '%s\n' "$header" | sed -n 's/^# expect: .*exit code \([0-9]*\).*/\1/p')
	if [ -z "$state" ] || { [ "$state" = completed ] && [ -z "$verdict" ]; }; then
		fail "$name.py: its first line must state 'state S' (and 'verdict V' when completed): $header"
		continue
	fi
	got=$(field "$W/drop/$name.result.json" state)
	[ "$got" = "$state" ] || fail "$name.py: state '$got', its header says '$state'"
	got=$(field "$W/drop/$name.result.json" verdict)
	[ "$got" = "$verdict" ] || fail "$name.py: verdict '$got', its header says '${verdict:-none}'"
	got=$(field "$W/drop/$name.result.json" exit_code)
	[ "$got" = "$code" ] || fail "$name.py: exit_code '$got', its header says '${code:-none}'"
	case $state/$verdict/$code in
	completed/exited/0) want=0 ;;
	completed/*) want=1 ;;
	awaiting_confirmation/* | blocked/*) want=6 ;;
	*) want=7 ;;
	esac
	[ $rc -eq $want ] || fail "$name.py: mai-agent submit exited $rc, expected $want: $(cat "$W/$name.submit")"
	if [ "$MODE" = mount ]; then
		got=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1])).get("writer",{}); print(w.get("from"), w.get("uid"), w.get("process"))' \
			"$W/drop/$name.result.json" 2>/dev/null)
		[ "$got" = "request 0 mai-agent" ] || fail "$name.py: writer '$got', expected the request of mai-agent submit (uid 0)"
	fi
done < "$W/submits"

python3 "$SRC/tests/tools/validate_sidecars.py" "$W/drop" >&2 ||
	fail "sidecars of the examples do not match schemas/ (see above)"
[ $fails -eq 0 ] || { tail -30 "$W/agent.log" >&2; exit 1; }
echo "ok ($MODE mode): $n example scripts end in the state, verdict and exit code their headers state"
