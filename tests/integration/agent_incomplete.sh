#!/bin/sh
# Only complete content runs, and .wait answers every final state, in mount
# mode with real faults (issue 28): a write that fails with ENOSPC on a
# 1 MiB tmpfs (mounted here, under the agent's mount) leaves a script that
# is answered rejected (incomplete), not run, not even when asked to run
# again (foo.rerun), until it is written again; the agent killed with SIGKILL
# while a writer saves a script line by line leaves a note, and the next
# start holds that script as incomplete until it is written again; a .wait
# reader of a name that is not UTF-8 gets its rejection; a .wait reader
# when the agent stops gets "Operation canceled", never "Transport endpoint
# is not connected". HIGH scripts, so no container runs. Exit 77 without
# Docker, root or FUSE, unless MAI_REQUIRE_REAL=1.
set -u
. "$(dirname "$0")/agent_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (a tmpfs mount, a FUSE mount)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
require_docker /var/run/docker.sock

SMALL=$T/small
D=$SMALL/drop
on_exit() {
	grep -q " $D " /proc/self/mounts && umount -l "$D"
	grep -q " $SMALL " /proc/self/mounts && umount -l "$SMALL"
}
mkdir -p "$SMALL"
mount -t tmpfs -o size=1m,mode=0755 "mai-incomplete-$$" "$SMALL" || { fail "cannot mount a tmpfs"; exit 1; }
write_agent_config "$D" "$T/state" "drop_mode: mount"
DOCKER_CHECKED=1
start_agent

# high N: a HIGH script (held: no container), different for each N: a
# shell command fed sys.argv (a literal os.system is contained, not held).
high() { printf 'import os, sys\nos.system("echo %s " + sys.argv[0])\n' "$1"; }

# 1. ENOSPC through the mount: the agent saw the write fail, so it does not
# take what landed as the script.
dd if=/dev/zero of="$D/.filler" bs=4k 2> /dev/null
high full > "$D/nospace.py" 2> /dev/null && fail "a write to the full tmpfs succeeded"
rm -f "$D/.filler"
wait_field "$D/nospace.result.json" reason incomplete 20
field "$D/nospace.result.json" message | grep -q "No space left on device" ||
	fail "nospace.py: the message does not say why: $(field "$D/nospace.result.json" message)"
# Asked to run again as it is (nospace.rerun): still held, not run.
was=$(field "$D/nospace.result.json" times.accepted)
: > "$D/nospace.rerun"
wait_json "$D/nospace.result.json" 20 'f("times.accepted") != args[0]' "$was"
[ "$(field "$D/nospace.result.json" times.accepted)" != "$was" ] || fail "nospace.rerun was not answered"
[ "$(field "$D/nospace.result.json" reason)" = incomplete ] ||
	fail "nospace.rerun ran the incomplete nospace.py: $(field "$D/nospace.result.json" state)"
# Written again, now that there is room: taken as usual.
high full > "$D/nospace.py"
wait_field "$D/nospace.result.json" state awaiting_confirmation 20

# 2. .wait of a name that is not UTF-8: its bad_name rejection, at once.
BAD=$(printf 'bad\377')
high bad > "$D/$BAD.py"
out=$(timeout 10 cat "$D/.wait/$BAD.result.json") || fail ".wait of a name that is not UTF-8 did not answer"
echo "$out" | grep -q '"bad_name"' || fail ".wait of a name that is not UTF-8 gave: $out"

# 3. SIGKILL while a writer saves slow.py line by line (11 lines, 0.2 s
# apart): the writer gets an error, and the next start holds what arrived.
(
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		printf 'print(%s)  # os.system("x")\n' "$i" || exit 1
		sleep 0.2
	done
) > "$D/slow.py" 2> "$T/writer.err" &
WRITER=$!
i=0
until [ "$(ls "$T/state/writing" 2>/dev/null | wc -l)" -gt 0 ] || [ $i -ge 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ "$(ls "$T/state/writing" 2>/dev/null | wc -l)" -gt 0 ] || fail "no note of slow.py being written"
sleep 0.5
kill -KILL "$PID"
wait "$PID" 2> /dev/null
PID=
wait "$WRITER" && fail "the writer of slow.py did not see the agent go"
start_agent
wait_field "$D/slow.result.json" reason incomplete 20
field "$D/slow.result.json" message | grep -q "open for writing when the agent stopped" ||
	fail "slow.py: $(field "$D/slow.result.json" message)"
grep -q "slow.py was open for writing when the agent stopped" "$T/agent.log" ||
	fail "the start did not say that slow.py is held"
# Saved again whole: taken as usual, and the note goes.
high slow > "$D/slow.py"
wait_field "$D/slow.result.json" state awaiting_confirmation 20
[ "$(ls "$T/state/writing" | wc -l)" = 0 ] || fail "notes left in state/writing: $(ls "$T/state/writing")"

# 4. A .wait reader when the agent stops: "Operation canceled".
exec 3> "$D/open.py"
timeout 30 cat "$D/.wait/open.result.json" > /dev/null 2> "$T/wait.err" &
CAT=$!
sleep 0.5
kill -0 "$CAT" 2> /dev/null || fail ".wait of a script open for writing did not wait"
stop_agent
wait "$CAT" && fail "the .wait reader got an answer from an agent that stopped"
exec 3>&-
grep -q "Operation canceled" "$T/wait.err" || fail "the .wait reader at shutdown got: $(cat "$T/wait.err")"
grep -q "not connected" "$T/wait.err" && fail "the .wait reader at shutdown got ENOTCONN"

lib_finish agent_incomplete
