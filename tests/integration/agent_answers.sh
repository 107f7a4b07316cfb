#!/bin/sh
# Every drop gets an answer, again when it is lost (issue 28), in watch
# mode, with real faults: the commands follow the running agent's
# configuration (an /etc/mai of their own, in a mount namespace); a result removed by hand and one replaced by
# another user's file are written again from the agent's copy when the
# content is submitted again (an answer_restored record says so); submit
# --rerun and a hand-made foo.rerun run the same content again; an empty
# file is answered without a container; a drop directory on a full tmpfs
# (mounted here, 1 MiB) gets its answers once space returns, and the
# 0-byte file a failed write left there is answered as empty; submit says
# that no agent runs instead of waiting out its timeout; an agent whose
# standard error is a pipe that closed (head -1) keeps working and removes
# its containers when it stops, and its audit view (which writes to the same
# pipe) serves on and is unmounted. Exit 77 without Docker, root or FUSE,
# unless MAI_REQUIRE_REAL=1.
set -u
# The warm pool is on: an agent whose standard error closed must still
# remove its idle containers when it stops.
AGENT_POOL=1
. "$(dirname "$0")/agent_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (a tmpfs mount, files of another user)"
[ -c /dev/fuse ] || skip "no /dev/fuse (the audit view)"
require_docker /var/run/docker.sock

SMALL=$T/small
# The image that reads PEP 723 blocks, missing when the agent starts (4b
# tags it): a name of this run's own, untagged at exit.
PIP=mai-test-pip-$$
untag_pip() {
	curl -s -X DELETE --unix-socket /var/run/docker.sock \
		"http://localhost/images/$PIP:latest?noprune=1" > /dev/null
}
on_exit() {
	unmount_view "$T/view"
	grep -q " $SMALL " /proc/self/mounts && umount -l "$SMALL"
	untag_pip
}
mkdir -p "$SMALL"
mount -t tmpfs -o size=1m,mode=0755 "mai-answers-$$" "$SMALL" || { fail "cannot mount a tmpfs"; exit 1; }
D=$SMALL/drop
write_agent_config "$D" "$T/state"
printf 'network:\n  image: %s:latest\n' "$PIP" >> "$T/conf/sandbox.yaml"
DOCKER_CHECKED=1
start_agent

# submit_rc OUT FILE [ARGS...]: runs 'mai-agent submit', its stdout and
# stderr in OUT; prints its exit status.
submit_rc() {
	_out=$1
	shift
	"$AGENT" submit "$@" > "$_out" 2>&1
	echo $?
}
# records TYPE FILE: how many records of TYPE the log holds about FILE.
records() {
	audit_records "$T/state/audit" "$1" "$2" | wc -l
}

# 0. The commands follow the running agent's configuration: in a mount
# namespace of its own whose /etc is an overlay with an /etc/mai that names
# only the agent's state directory, 'mai-agent pending' without
# --config-dir or MAI_CONFIG_DIR finds the agent's drop directory through
# status.json, and no "not found: using the defaults" line is printed.
mkdir -p "$T/etc-up" "$T/etc-work"
unshare --mount --propagation private sh -c '
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/etc-up,workdir=$1/etc-work" /etc &&
	rm -rf /etc/mai && mkdir /etc/mai &&
	printf "state_dir: %s\n" "$1/state" > /etc/mai/agent.yaml &&
	env -u MAI_CONFIG_DIR "$2" pending &&
	{ env -u MAI_CONFIG_DIR "$2" config check > "$1/config-check.out" 2>&1 || :; }' \
	sh "$T" "$AGENT" > "$T/follow.out" 2>&1 ||
	fail "mai-agent pending in the namespace: $(cat "$T/follow.out")"
# 'config check' checks what it is told to (/etc/mai here) but points out
# that the running agent uses another configuration.
grep -qF "the running agent uses the configuration in $(realpath "$T/conf"), not this one" "$T/config-check.out" ||
	fail "config check does not say the running agent uses another configuration: $(cat "$T/config-check.out")"
grep -q "nothing is held in $D\$" "$T/follow.out" ||
	fail "mai-agent pending did not follow the running agent's configuration: $(cat "$T/follow.out")"
grep -q "not found" "$T/follow.out" && fail "mai-agent pending said: $(cat "$T/follow.out")"
"$AGENT" status > "$T/status.out" 2>&1
grep -qx "configuration: $(realpath "$T/conf")" "$T/status.out" ||
	fail "status does not name the agent's configuration: $(cat "$T/status.out")"

# 1. A lost answer comes back: the same content submitted again after its
# result was removed is answered from the agent's copy, not run again and
# not left without an answer (it gave exit 8 before).
printf 'print(6 * 7)\n' > "$T/same.py"
rc=$(submit_rc "$T/s1.out" "$T/same.py" --timeout 60)
[ "$rc" = 0 ] || fail "submit same.py: exit $rc, expected 0 ($(cat "$T/s1.out"))"
runs=$(records job_accepted same.py)
rm -f "$D/same.result.json" "$D/same.audit"
rc=$(submit_rc "$T/s2.out" "$T/same.py" --timeout 30)
[ "$rc" = 0 ] || fail "submit same.py after its result was removed: exit $rc, expected 0 ($(cat "$T/s2.out"))"
grep -q "answered before" "$T/s2.out" || fail "submit did not say that same.py was answered before: $(cat "$T/s2.out")"
[ -f "$D/same.audit" ] || fail "same.audit was not written again"
[ "$(field "$D/same.result.json" execution.stdout.text)" = 42 ] ||
	fail "the result written again is not the run's: $(field "$D/same.result.json" execution.stdout.text)"
[ "$(records job_accepted same.py)" = "$runs" ] || fail "same.py ran again instead of being answered from the copy"
audit_records "$T/state/audit" answer_restored same.py | grep -q '"placed": "drop_dir"' ||
	fail "no answer_restored record for same.py"

# 2. Run again on purpose: submit --rerun, and a hand-made same.rerun.
rc=$(submit_rc "$T/s3.out" "$T/same.py" --rerun --timeout 60)
[ "$rc" = 0 ] || fail "submit --rerun same.py: exit $rc ($(cat "$T/s3.out"))"
[ "$(records job_accepted same.py)" = $((runs + 1)) ] || fail "submit --rerun did not run same.py again"
audit_records "$T/state/audit" job_accepted same.py | tail -1 | grep -q '"rerun_by": 0' ||
	fail "the rerun's job_accepted does not name who asked (rerun_by)"
: > "$D/same.rerun"
i=0
until [ "$(records job_accepted same.py)" = $((runs + 2)) ] || [ $i -ge 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(records job_accepted same.py)" = $((runs + 2)) ] || fail "same.rerun did not run same.py again"
wait_final "$D/same.result.json" 60
[ -e "$D/same.rerun" ] && fail "same.rerun was not used up"

# 3. A file of another user at the result's name: the answer goes to the
# state directory, and submit gives it from there, saying why.
printf 'print("held name")\n' > "$T/foreign.py"
echo '{"forged": true}' > "$D/foreign.result.json"
chown 65534 "$D/foreign.result.json"
rc=$(submit_rc "$T/f.out" "$T/foreign.py" --timeout 60)
[ "$rc" = 0 ] || fail "submit foreign.py: exit $rc, expected 0 from the agent's copy ($(cat "$T/f.out"))"
grep -q "is a file that is not the agent's" "$T/f.out" || fail "submit did not say why foreign.py's answer is elsewhere: $(cat "$T/f.out")"

# 4. An empty file is answered as empty, with no container.
: > "$D/empty.py"
wait_field "$D/empty.result.json" reason empty 20
[ "$(field "$D/empty.result.json" state)" = rejected ] || fail "empty.py: state $(field "$D/empty.result.json" state)"
[ -z "$(field "$D/empty.result.json" execution)" ] || fail "empty.py ran"

# 4b. PEP 723 blocks, here too and not only in network.sh: a block never
# closed and a 'dependencies' that is not a list are rejected as
# bad_metadata, saying what is wrong; a block without dependencies runs,
# its requires-python shown in the assessment. While the image that reads
# the blocks (network.image) is missing, a block is answered error
# sandbox_unavailable, naming the image and its build command, never
# rejected; once the image is there the retry reads it, without a restart.
printf '# /// script\n# requires-python = ">=3.8"\nprint(1)\n' > "$D/pep_open.py"
printf 'print(0)\n# /// script\n# dependencies = "requests"\n# ///\nprint(1)\n' > "$D/pep_deps.py"
printf '# /// script\n# requires-python = ">=3.8"\n# ///\nprint(7)\n' > "$D/pep_py.py"
# The error answer as it was seen: its retry rewrites the file meanwhile
# (queued, running, then the same error again).
wait_field "$D/pep_py.result.json" state error 20 "$T/pep_py.error.json"
[ "$(field "$T/pep_py.error.json" reason)" = sandbox_unavailable ] ||
	fail "pep_py.py without the pip image: reason $(field "$T/pep_py.error.json" reason), expected sandbox_unavailable"
field "$T/pep_py.error.json" message | grep -q "$PIP:latest .*build.sh --variant pip" ||
	fail "pep_py.py: the message does not name the missing image and its build: $(field "$T/pep_py.error.json" message)"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --unix-socket /var/run/docker.sock \
	"http://localhost/images/${MAI_SANDBOX_PIP_IMAGE:-mai-sandbox-pip:latest}/tag?repo=$PIP&tag=latest")
[ "$code" = 201 ] || fail "tagging the pip image as $PIP: HTTP $code"
for f in pep_open pep_deps; do
	wait_field "$D/$f.result.json" reason bad_metadata 60 || continue
	[ "$(field "$D/$f.result.json" state)" = rejected ] || fail "$f.py: state $(field "$D/$f.result.json" state)"
	[ -z "$(field "$D/$f.result.json" execution)" ] || fail "$f.py ran"
done
field "$D/pep_open.result.json" message | grep -q "^Rejected: pep_open.py: line 1: the PEP 723 block '# /// script' has no closing" ||
	fail "pep_open.py: the message does not say the block is not closed: $(field "$D/pep_open.result.json" message)"
field "$D/pep_deps.result.json" message |
	grep -q "^Rejected: pep_deps.py, line 2: 'dependencies' in the PEP 723 block is not an array of strings" ||
	fail "pep_deps.py: the message does not say what is wrong: $(field "$D/pep_deps.result.json" message)"
wait_final "$D/pep_py.result.json" 60
[ "$(field "$D/pep_py.result.json" execution.stdout.text)" = 7 ] ||
	fail "pep_py.py did not run: $(cat "$D/pep_py.result.json")"
[ "$(field "$D/pep_py.result.json" assessment.inline_metadata.requires_python)" = ">=3.8" ] ||
	fail "pep_py.py: requires-python is not shown: $(field "$D/pep_py.result.json" assessment.inline_metadata)"
rm -f "$D"/pep_*

# 5. A full disk: the answer of a script that ran is written once there is
# room again, and the 0-byte file of a write that failed is answered as
# empty, not run.
printf 'print("after the full disk")\n' > "$D/.full.py.part"
dd if=/dev/zero of="$D/.filler" bs=4k 2> /dev/null
mv "$D/.full.py.part" "$D/full.py"
printf 'print("lost to ENOSPC")\n' > "$D/zero.py" 2> /dev/null && fail "a write to a full tmpfs succeeded"
[ -s "$D/zero.py" ] && fail "zero.py is not empty after its write failed"
i=0
until grep -q "full.result.json: .*it is written as soon as the drop directory takes it" \
	"$T/agent.log" || [ $i -ge 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q "full.result.json: .*it is written as soon as the drop directory takes it" "$T/agent.log" ||
	fail "the agent did not say that full.py's answer waits for room"
[ "$(field "$D/full.result.json" state)" = completed ] && fail "full.result.json was written on a full disk?"
rm -f "$D/.filler"
wait_field "$D/full.result.json" execution.stdout.text "after the full disk
" 20
wait_field "$D/zero.result.json" reason empty 20
[ -f "$D/full.audit" ] || fail "full.audit was not written once there was room"

# 6. No agent: submit says so at once instead of waiting out its timeout.
# (And an answer removed meanwhile is written again by the next start.)
stop_agent
rm -f "$D/same.result.json"
printf 'print(1)\n' > "$T/late.py"
start=$(date +%s)
rc=$(submit_rc "$T/late.out" "$T/late.py" --timeout 60)
took=$(($(date +%s) - start))
[ "$rc" = 8 ] || fail "submit with no agent: exit $rc, expected 8"
grep -q "no agent is running" "$T/late.out" || fail "submit with no agent said: $(cat "$T/late.out")"
[ $took -lt 30 ] || fail "submit with no agent took ${took}s to give up"

# 7. A standard error that closes: 'mai-agent run 2>&1 | head -1'. The agent
# goes on (it answers late.py, which it finds at start, and a new drop),
# and SIGTERM removes its containers.
mkfifo "$T/pipe"
head -1 < "$T/pipe" > "$T/head.out" &
HEAD_PID=$!
mkdir -p "$T/view"
"$AGENT" run --mount="$T/view" > "$T/pipe" 2>&1 &
PID=$!
i=0
until grep -q "\"pid\": $PID," "$T/state/status.json" 2>/dev/null || [ $i -ge 600 ]; do
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
wait "$HEAD_PID"
[ -s "$T/head.out" ] || fail "head -1 read nothing from the agent"
printf 'print("after the pipe closed")\n' > "$D/piped.py"
# Until piped.py is answered, or the agent is gone (what a closed pipe did
# before: the test then stops here instead of waiting out every answer).
wait_json "$D/piped.result.json" 60 'f("state") == "completed" or not os.path.exists("/proc/" + args[0])' "$PID"
kill -0 "$PID" 2>/dev/null || { fail "the agent ended when its standard error closed"; lib_finish agent_answers; }
wait_final "$D/piped.result.json" 1
wait_final "$D/late.result.json" 60
wait_final "$D/same.result.json" 20
[ "$(records answer_restored same.py)" = 2 ] || fail "the start did not write same.py's removed answer again"
# The audit view it started writes to the same pipe: it serves on.
grep -q "^OK " "$T/view/verify" 2>/dev/null || fail "the audit view does not answer after the pipe closed"
i=0
until [ "$(containers_of_instance)" -gt 0 ] || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(containers_of_instance)" -gt 0 ] || fail "no warm container to remove (the check would prove nothing)"
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "the agent whose standard error closed exited $rc on SIGTERM, expected 0"
left=$(containers_of_instance /var/run/docker.sock 10)
[ "$left" = 0 ] || fail "$left container(s) left behind by the agent whose standard error closed"
grep -q " $T/view " /proc/self/mounts && fail "the audit view is still mounted after the stop"

lib_finish agent_answers
