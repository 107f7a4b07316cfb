#!/bin/sh
# Run by test_maiaudit.sh (as root, maybe inside 'unshare -m'): mounts the
# view as the unprivileged user USER_UID through fusermount3, reads verify as
# that user and as root, unmounts with 'fusermount3 -u' as that user, and
# prints what happened for the caller to check:
#   mountinfo: <the mount's line>   user-verify: <line>   root-read: <error>
#   unmount: <status>   maiaudit-exit: <status>
# and first, on a mount point the user may not write (root's, 0755), which
# fusermount3 refuses: refused-exit: <status>   refused-log: <its last line>
# With FUSE_NODE=1 it first puts a mode 0666 node of the FUSE device over
# /dev/fuse: only valid in a private mount namespace (unshare -m), where the
# host's node is left alone. Exits 77 with a reason when that cannot be done.
# Environment: MAIAUDIT, USER_UID, USER_GID, DIR (owned by the user; holds
# mnt/ and state/).
set -u
as_user() {
	setpriv --reuid="$USER_UID" --regid="$USER_GID" --clear-groups "$@"
}
# As the user, with a cleared environment (env -i) but for PATH and, in
# tests/coverage.sh's run, the variables that send the line counts to this
# test's own directory (tests/coverage_wrap.sh): without them the lines
# maiaudit runs here would be known to be run by some test, not by this one.
as_user_clean() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ${GCOV_PREFIX:+"GCOV_PREFIX=$GCOV_PREFIX"} \
		${GCOV_PREFIX_STRIP:+"GCOV_PREFIX_STRIP=$GCOV_PREFIX_STRIP"} \
		setpriv --reuid="$USER_UID" --regid="$USER_GID" --clear-groups "$@"
}
if [ "${FUSE_NODE:-0}" = 1 ]; then
	mknod -m 0666 "$DIR/fuse" c 10 229 2>"$DIR/node.err" ||
		{ echo "cannot make a FUSE device node: $(cat "$DIR/node.err")"; exit 77; }
	mount --bind "$DIR/fuse" /dev/fuse 2>"$DIR/node.err" ||
		{ echo "cannot bind a FUSE device node over /dev/fuse: $(cat "$DIR/node.err")"; exit 77; }
fi
mkdir -p "$DIR/notmine"
chown 0:0 "$DIR/notmine"
chmod 0755 "$DIR/notmine"
as_user_clean "$MAIAUDIT" "$DIR/notmine" --foreground \
	--state-dir "$DIR/state" --drop-dir "$DIR/state" --log-file "$DIR/refused.log" \
	</dev/null >/dev/null 2>&1
echo "refused-exit: $?"
echo "refused-log: $(tail -n 1 "$DIR/refused.log")"
P=
trap '[ -n "$P" ] && kill -TERM "$P" 2>/dev/null && wait "$P"' EXIT
as_user_clean "$MAIAUDIT" "$DIR/mnt" --foreground \
	--state-dir "$DIR/state" --drop-dir "$DIR/state" --log-file "$DIR/maiaudit.log" \
	</dev/null >/dev/null 2>&1 &
P=$!
i=0
until grep -q " $DIR/mnt .* fuse.maiaudit " /proc/self/mountinfo || [ $i -ge 100 ]; do
	kill -0 "$P" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
echo "mountinfo: $(grep " $DIR/mnt " /proc/self/mountinfo)"
echo "user-verify: $(as_user cat "$DIR/mnt/verify" 2>&1)"
echo "root-read: $(cat "$DIR/mnt/verify" 2>&1)"
as_user fusermount3 -u "$DIR/mnt" 2>&1
echo "unmount: $?"
i=0
while kill -0 "$P" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$P" 2>/dev/null; then
	echo "maiaudit-exit: still running 10 s after the unmount"
else
	wait "$P"
	echo "maiaudit-exit: $?"
	P=
fi
