#!/bin/sh
# maiaudit through a real FUSE mount: layout, modes, content, EROFS, odd
# offsets, runs/ with hostile names, status.json, the audit log files
# against the core library's own answers, tampering, concurrent appends,
# a large entries/ listing, clean unmount and recovery after kill -9.
#
# Needs /dev/fuse and fusermount3; exits 77 without them, unless
# MAI_REQUIRE_REAL=1 (CI) makes that a failure. The mount is removed on
# every exit path, including a failed check (trap on EXIT).
#
# Environment (set by meson): MAIAUDIT, EROFS_PROBE, VIEW_AUDIT_TOOL.
set -u

skip() {
	if [ "${MAI_REQUIRE_REAL:-0}" = 1 ]; then
		echo "FAIL (MAI_REQUIRE_REAL=1): $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

[ -e /dev/fuse ] || skip "no /dev/fuse: load the fuse module (modprobe fuse) or run where FUSE is available"
[ -r /dev/fuse ] && [ -w /dev/fuse ] || skip "/dev/fuse is not readable and writable by uid $(id -u)"
command -v fusermount3 >/dev/null 2>&1 || skip "fusermount3 is missing: install the fuse3 package"
: "${MAIAUDIT:?MAIAUDIT must point at the maiaudit binary}"
: "${EROFS_PROBE:?EROFS_PROBE must point at the erofs_probe binary}"
: "${VIEW_AUDIT_TOOL:?VIEW_AUDIT_TOOL must point at the view_audit_tool binary}"
: "${MAI_AGENT:?MAI_AGENT must point at the mai-agent binary}"

T=$(mktemp -d "${TMPDIR:-/tmp}/maiaudit-test.XXXXXX") || exit 1
MNT=$T/mnt
STATE=$T/state
DROP=$T/drop
LOG=$T/maiaudit.log
PID=
WRITER=
mkdir -p "$MNT" "$STATE/audit" "$DROP"

cleanup() {
	status=$?
	[ -n "$WRITER" ] && kill "$WRITER" 2>/dev/null && wait "$WRITER" 2>/dev/null
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -TERM "$PID" 2>/dev/null
		i=0
		while kill -0 "$PID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$PID" 2>/dev/null
	fi
	# Whatever happened above, no mount may outlive the test.
	if grep -q " $MNT " /proc/self/mountinfo 2>/dev/null; then
		fusermount3 -u -z "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	fi
	if [ $status -ne 0 ] && [ -f "$LOG" ]; then
		echo "--- maiaudit log ---" >&2
		cat "$LOG" >&2
	fi
	rm -rf "$T"
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

ok() {
	echo "ok - $*"
}

# skip_part REASON: one check cannot run here: a failure when
# MAI_REQUIRE_REAL=1; otherwise the others go on and the script exits 77
# at its end, so the skip shows in meson's summary.
parts_skipped=
skip_part() {
	[ "${MAI_REQUIRE_REAL:-0}" = 1 ] && fail "$* (a skip, and MAI_REQUIRE_REAL=1)"
	echo "SKIP part: $*" >&2
	parts_skipped="$parts_skipped
  $*"
}

mounted() {
	grep -q " $MNT .* fuse.maiaudit " /proc/self/mountinfo
}

mount_count() {
	n=$(grep -c "info: mounted $MNT " "$LOG" 2>/dev/null)
	echo "${n:-0}"
}

# Waits for this start's "mounted" line: a stale mount is in mountinfo too.
wait_mounted() {
	i=0
	until [ "$(mount_count)" -gt "$1" ] && mounted; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "maiaudit did not mount $MNT within 10 s"
		kill -0 "$PID" 2>/dev/null || fail "maiaudit exited before mounting $MNT"
		sleep 0.1
	done
}

# Waits for maiaudit to end after a signal; it must exit 0 (under ASan a
# leak or an error makes that fail).
wait_gone() {
	i=0
	while kill -0 "$PID" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "maiaudit (pid $PID) did not exit within 10 s of $1"
		sleep 0.1
	done
	wait "$PID"
	st=$?
	[ $st -eq 0 ] || fail "maiaudit exited with status $st after $1"
}

start_view() {
	before=$(mount_count)
	"$MAIAUDIT" "$MNT" --foreground --state-dir "$STATE" --drop-dir "$DROP" \
		--log-file "$LOG" "$@" </dev/null >/dev/null 2>&1 &
	PID=$!
	wait_mounted "$before"
}

stop_view() {
	kill -"$1" "$PID"
	wait_gone "SIG$1"
	PID=
	mounted && fail "$MNT is still mounted after SIG$1"
	ok "SIG$1: maiaudit unmounted $MNT and exited"
}

# The same bytes through the mount and from a reference file.
same() {
	cmp -s "$1" "$2" || fail "$1 differs from $2: $(cmp "$1" "$2" 2>&1)"
}

# ---- layout and modes -------------------------------------------------
start_view
ok "mounted"
[ "$(ls "$MNT" | tr '\n' ' ')" = "checkpoint entries head metrics pubkey runs status.json verify verify.json " ] ||
	fail "root listing: $(ls "$MNT" | tr '\n' ' ')"
for f in verify verify.json status.json metrics; do
	[ "$(stat -c %a "$MNT/$f")" = 444 ] || fail "$f mode $(stat -c %a "$MNT/$f")"
done
for d in . entries runs; do
	[ "$(stat -c %a "$MNT/$d")" = 555 ] || fail "$d mode $(stat -c %a "$MNT/$d")"
done
grep " $MNT " /proc/self/mountinfo | grep -q " ro[, ]" || fail "mount is not read-only"
# df and stat -f ask the view itself (statfs): a read-only file system of
# 4 KiB blocks, none of them free.
[ "$(stat -f -c '%S %f %a' "$MNT")" = "4096 0 0" ] ||
	fail "stat -f on the mount: $(stat -f -c '%S %f %a' "$MNT")"
ok "layout, modes 0444/0555, mounted ro, statfs"

# ---- status.json --------------------------------------------------------
grep -q "\"message\": \"the agent is not running: $STATE/status.json does not exist" "$MNT/status.json" ||
	fail "status.json without an agent: $(cat "$MNT/status.json")"
# metrics without an agent: up 0, the log's own series, valid exposition text
grep -qx "mai_agent_up 0" "$MNT/metrics" || fail "metrics without an agent: $(cat "$MNT/metrics")"
grep -q "^mai_agent_audit_records_total [0-9]" "$MNT/metrics" || fail "metrics: no audit records"
if command -v promtool > /dev/null; then
	promtool check metrics < "$MNT/metrics" > "$T/promtool.out" 2>&1 ||
		fail "promtool check metrics on the view: $(cat "$T/promtool.out")"
else
	skip_part "promtool check metrics on the view: promtool is not installed (packaging/install-deps.sh installs prometheus)"
fi
printf '{"pid": %d, "queue": 2, "docker": true}' $$ >"$STATE/status.json"
printf '{"pid": %d, "queue": 2, "docker": true}\n' $$ >"$T/status.expect"
same "$MNT/status.json" "$T/status.expect"
ok "status.json: absent says not running; present is served as written"

# ---- runs/ --------------------------------------------------------------
printf '{"state": "completed", "verdict": "exited", "exit_code": 0}\n' >"$DROP/foo.result.json"
printf 'audit sidecar of foo\n' >"$DROP/foo.audit"
printf '{"state": "running"}\n' >"$DROP/bar.result.json"
ln -s /etc/passwd "$DROP/evil.result.json"
ln -s /etc/passwd "$DROP/bar.audit"
mkfifo "$DROP/fifo.result.json"
printf '{}' >"$DROP/$(printf 'new\nline').result.json"
printf '{}' >"$DROP/.hidden.result.json"
# Another user's file at a sidecar's name: not the agent's, not listed.
printf '{"state": "completed"}\n' >"$DROP/forged.result.json"
chown 65534 "$DROP/forged.result.json"
[ "$(ls "$MNT/runs" | tr '\n' ' ')" = "bar foo " ] || fail "runs/ listing: $(ls "$MNT/runs" | tr '\n' ' ')"
[ "$(ls "$MNT/runs/foo" | tr '\n' ' ')" = "audit result.json " ] || fail "runs/foo listing"
[ "$(ls "$MNT/runs/bar" | tr '\n' ' ')" = "result.json " ] || fail "runs/bar lists a symlinked audit"
same "$MNT/runs/foo/result.json" "$DROP/foo.result.json"
same "$MNT/runs/foo/audit" "$DROP/foo.audit"
[ -e "$MNT/runs/evil" ] && fail "a symlinked sidecar is shown"
[ -e "$MNT/runs/fifo/result.json" ] && fail "a FIFO sidecar is shown"
[ -e "$MNT/runs/../../etc/passwd" ] && fail "runs/ escapes the view"
[ -e "$MNT/runs/forged" ] && fail "another user's file at a sidecar's name is shown"
ok "runs/: sidecars served byte for byte; symlinks, FIFOs, others' files, newline and hidden names left out"

# ---- a reader keeps its snapshot ----------------------------------------
exec 3<"$MNT/runs/foo/result.json"
printf '{"state": "completed", "verdict": "timeout", "message": "took too long"}\n' >"$DROP/foo.result.json.new"
mv "$DROP/foo.result.json.new" "$DROP/foo.result.json"
grep -q '"exit_code": 0' <&3 || fail "an open descriptor saw the content change"
exec 3<&-
grep -q '"timeout"' "$MNT/runs/foo/result.json" || fail "a new open did not see the new result"
ok "content is fixed per open descriptor; a new open sees the new content"

# ---- odd offsets: cat, head -c, tail -c, dd -----------------------------
for f in runs/foo/result.json status.json verify; do
	cat "$MNT/$f" >"$T/copy"
	size=$(wc -c <"$T/copy")
	[ "$(stat -c %s "$MNT/$f")" = "$size" ] || fail "$f: stat size $(stat -c %s "$MNT/$f") but $size bytes read"
	[ "$(head -c 7 "$MNT/$f" | od -An -c)" = "$(head -c 7 "$T/copy" | od -An -c)" ] || fail "$f: head -c 7"
	[ "$(tail -c 9 "$MNT/$f" | od -An -c)" = "$(tail -c 9 "$T/copy" | od -An -c)" ] || fail "$f: tail -c 9"
	[ "$(dd if="$MNT/$f" bs=3 skip=5 count=4 2>/dev/null | od -An -c)" = \
	  "$(dd if="$T/copy" bs=3 skip=5 count=4 2>/dev/null | od -An -c)" ] || fail "$f: dd bs=3 skip=5"
	[ "$(dd if="$MNT/$f" bs=1 skip=$((size - 1)) 2>/dev/null | od -An -c)" = \
	  "$(tail -c 1 "$T/copy" | od -An -c)" ] || fail "$f: dd of the last byte"
	[ -z "$(dd if="$MNT/$f" bs=7 skip=$((size + 3)) 2>/dev/null)" ] || fail "$f: read past the end"
done
ok "cat, head -c, tail -c and dd at odd offsets agree with a plain copy"

# ---- EROFS everywhere ---------------------------------------------------
"$EROFS_PROBE" "$MNT" verify entries >"$T/probe.out" || { cat "$T/probe.out"; fail "a write-type call on verify did not get EROFS"; }
"$EROFS_PROBE" "$MNT" runs/foo/result.json runs/foo >"$T/probe.out" || { cat "$T/probe.out"; fail "a write-type call under runs/ did not get EROFS"; }
same "$MNT/runs/foo/result.json" "$DROP/foo.result.json"
ok "every write-type call answers EROFS ($(grep -c EROFS "$T/probe.out") calls per path)"

# ---- the audit log ------------------------------------------------------
. "$(dirname "$0")/maiaudit_log_checks.sh"

# ---- lifecycle ------------------------------------------------------------
# A reader still holds a file when the view stops: its release never
# comes, and the view frees it itself (under the sanitizers a leak would
# make maiaudit exit 1). A directory held open is freed the same way, but
# libfuse's own record of it is not, so the test holds a file only.
exec 8< "$MNT/verify"
stop_view TERM
exec 8<&-
# The log and key named outright instead of found under --state-dir, and
# --debug: libfuse then logs every request.
start_view --debug --log-dir "$STATE/audit" --pubkey "$PUB"
grep -q "^OK n=100000 " "$MNT/verify" || fail "verify with --log-dir and --pubkey: $(cat "$MNT/verify")"
grep -q 'opcode: ' "$LOG" || fail "--debug logged no request: $(tail -3 "$LOG")"
ok "--log-dir and --pubkey name the same log and key; --debug logs each request"
stop_view INT

start_view
kill -KILL "$PID"
wait "$PID" 2>/dev/null
PID=
ls "$MNT" >/dev/null 2>"$T/ls.err" && fail "after kill -9 the mount point still answers"
grep -q "Transport endpoint is not connected" "$T/ls.err" || fail "after kill -9: $(cat "$T/ls.err")"
start_view
grep -q "stale mount on $MNT (transport endpoint is not connected" "$LOG" ||
	fail "no message about the stale mount in the log"
[ "$(ls "$MNT" | wc -l)" = 9 ] || fail "the remounted view is not whole"
[ "$(grep -c " $MNT " /proc/self/mountinfo)" = 1 ] || fail "mounts are stacked on $MNT"
ok "after kill -9 the next start clears the stale mount, says so and mounts again"

"$MAIAUDIT" "$MNT" --state-dir "$STATE" --log-file "$T/second.log" </dev/null >/dev/null 2>&1 &&
	fail "a second maiaudit mounted over a live one"
grep -q "is already a mount point (fuse.maiaudit); unmount it first with 'fusermount3 -u $MNT'" "$T/second.log" ||
	fail "second maiaudit: $(cat "$T/second.log")"
ok "a second maiaudit on a live mount refuses with advice"
stop_view TERM

# ---- paths from the agent's configuration ----------------------------------
mkdir -p "$T/config"
printf 'drop_dir: %s\nstate_dir: %s\nmount_point: %s\n' "$DROP" "$STATE" "$MNT" >"$T/config/agent.yaml"
before=$(mount_count)
"$MAIAUDIT" --config-dir "$T/config" --foreground --log-file "$LOG" </dev/null >/dev/null 2>&1 &
PID=$!
wait_mounted "$before"
grep -q "info: mounted $MNT read-only (log $STATE/audit, state $STATE, drop $DROP)" "$LOG" ||
	fail "paths from --config-dir: $(tail -1 "$LOG")"
[ "$(ls "$MNT/runs" | tr '\n' ' ')" = "bar foo " ] || fail "runs/ with the configured drop_dir"
ok "mount point, state, log and drop directories come from --config-dir"
stop_view TERM
# ---- a non-root user through fusermount3 -----------------------------------
# The user (nobody) mounts its own copy of a small log: libfuse opens
# /dev/fuse as that user and fusermount3 (setuid root) does the mount.
# Debian's udev makes /dev/fuse mode 0666; a container's node is often 0600,
# and then the user gets a 0666 node of the same device in a private mount
# namespace (unshare -m) so the host's node is not changed.
user_mount() {
	if [ "$(id -u)" -ne 0 ]; then
		ok "non-root mount: the whole test already runs as uid $(id -u)"
		return
	fi
	uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody' to mount the view as"
	gid=$(id -g nobody)
	U=$T/user
	mkdir -p "$U/mnt" "$U/state/audit"
	tool fill "$U/state/audit" "$T/keys/user.key" 20
	"$MAI_AGENT" verify "$U/state" --pubkey "$U/state/audit/pubkey" >"$U/verify.expect" || fail "mai-agent verify on the user's log"
	chown -R "$uid:$gid" "$U"
	chmod 0711 "$T"
	setpriv --reuid="$uid" --regid="$gid" --clear-groups test -x "$MAIAUDIT" ||
		skip "$MAIAUDIT is not executable by nobody: build in a directory others can read"
	node=0
	[ "$(stat -c %a /dev/fuse)" = 666 ] || node=1
	if [ $node = 1 ]; then
		FUSE_NODE=1 MAIAUDIT=$MAIAUDIT USER_UID=$uid USER_GID=$gid DIR=$U \
			unshare -m sh "$(dirname "$0")/maiaudit_user_mount.sh" >"$U/out" 2>&1
	else
		MAIAUDIT=$MAIAUDIT USER_UID=$uid USER_GID=$gid DIR=$U \
			sh "$(dirname "$0")/maiaudit_user_mount.sh" >"$U/out" 2>&1
	fi
	st=$?
	[ $st -eq 77 ] && skip "non-root mount: $(tail -1 "$U/out")"
	[ $st -eq 0 ] || fail "non-root mount: exit $st: $(cat "$U/out")"
	grep -q "^mountinfo: .* $U/mnt .* fuse.maiaudit .*user_id=$uid," "$U/out" ||
		fail "not mounted as uid $uid: $(cat "$U/out") $(cat "$U/maiaudit.log")"
	[ "$(sed -n 's/^user-verify: //p' "$U/out")" = "$(cat "$U/verify.expect")" ] ||
		fail "cat verify as uid $uid: $(cat "$U/out")"
	grep -q "^root-read: .*Permission denied" "$U/out" ||
		fail "without --allow-other root could read the user's view: $(cat "$U/out")"
	grep -qx "unmount: 0" "$U/out" || fail "fusermount3 -u as uid $uid: $(cat "$U/out")"
	grep -qx "maiaudit-exit: 0" "$U/out" || fail "maiaudit after fusermount3 -u: $(cat "$U/out")"
	# a mount the kernel refuses is a runtime failure (exit 1), said so
	grep -qx "refused-exit: 1" "$U/out" ||
		fail "maiaudit on a mount point uid $uid may not write: $(cat "$U/out")"
	grep -q "^refused-log: .*cannot mount on $U/notmine (see the message above)" "$U/out" ||
		fail "maiaudit's message for a refused mount: $(cat "$U/out")"
	ok "uid $uid mounted the view through fusermount3$([ $node = 1 ] && echo " (0666 /dev/fuse node in a private mount namespace: this one is $(stat -c %a /dev/fuse))"), read verify, others could not (no allow_other), and fusermount3 -u unmounted it; a mount point it may not write: exit 1, said"
}
user_mount

if [ -n "$parts_skipped" ]; then
	echo "SKIP: the other maiaudit checks passed, but these did not run:$parts_skipped" >&2
	exit 77
fi
echo "all maiaudit checks passed"
