#!/bin/sh
# The audit log read by Go's own transparency-log code: a small Go program
# (tests/interop/tlogcheck) built offline against Debian's
# golang-golang-x-mod-dev checks the agent's signed checkpoints (sumdb/note),
# every entry hash and the checkpoint root recomputed from the records, a
# sidecar's inclusion proofs and a consistency proof (sumdb/tlog). Then the
# other way: a checkpoint cosigned by witnesses (a C2SP tlog-cosignature/v1
# line and a plain Ed25519 line by Go's note.Sign) must pass
# 'mai-agent verify --since' and as the log's own checkpoint, and a
# checkpoint of size 0, signed with the log's real key, must not.
#
# Exit 77 without Go or the Debian source packages, unless MAI_REQUIRE_REAL=1.
# Environment (set by meson): MAI_AGENT, MAI_SOURCE_ROOT, VIEW_AUDIT_TOOL.
set -u

. "$(dirname "$0")/agent_lib.sh"
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}
TOOL=${VIEW_AUDIT_TOOL:?VIEW_AUDIT_TOOL must name view_audit_tool}
GOCODE=/usr/share/gocode
command -v go > /dev/null || skip "go is not installed (packaging/install-deps.sh installs golang-go)"
[ -f "$GOCODE/src/golang.org/x/mod/sumdb/note/note.go" ] ||
	skip "golang.org/x/mod is not in $GOCODE (packaging/install-deps.sh installs golang-golang-x-mod-dev)"
W=$T

# GOPATH mode on Debian's sources: no module download, no network at all.
(cd "$SRC/tests/interop/tlogcheck" &&
	GOPATH=$GOCODE GO111MODULE=off GOPROXY=off GOFLAGS= GOCACHE=$W/gocache GOTOOLCHAIN=local \
	go build -o "$W/tlogcheck" .) ||
	{ echo "FAIL: go build of tests/interop/tlogcheck" >&2; exit 1; }
CHECK=$W/tlogcheck
L=$W/audit
K=$W/audit.key

# A log of 40 records with a checkpoint, kept as the old one; then 25 more.
"$TOOL" fill "$L" "$K" 40 || { echo "FAIL: view_audit_tool fill" >&2; exit 1; }
P=$L/pubkey
cp "$L/checkpoint" "$W/old.ckpt"
"$TOOL" fill "$L" "$K" 25 || { echo "FAIL: view_audit_tool fill" >&2; exit 1; }

# 1. sumdb/note opens both checkpoints; tlog recomputes the root.
"$CHECK" checkpoint "$P" "$W/old.ckpt" > "$W/old.txt" || fail "note.Open of the old checkpoint"
"$CHECK" checkpoint "$P" "$L/checkpoint" > "$W/new.txt" || fail "note.Open of the checkpoint"
"$CHECK" log "$P" "$L" || fail "entry hashes and root recomputed by sumdb/tlog"

# 2. A sidecar's inclusion proofs (records far apart and next to each other).
"$TOOL" sidecar "$L" "$K" "$W/job.audit" 0 17 18 39 55 || { echo "FAIL: view_audit_tool sidecar" >&2; exit 1; }
"$CHECK" sidecar "$P" "$W/job.audit" || fail "sidecar inclusion proofs with tlog.CheckRecord"
"$AGENT" verify "$W/job.audit" --pubkey "$P" > /dev/null || fail "mai-agent verify of the sidecar"
python3 "$SRC/tests/tools/validate_sidecars.py" "$W" > /dev/null 2>&1 ||
	fail "the sidecar against schemas/audit-sidecar.schema.json"

# 3. The agent's consistency proof from the old checkpoint, with CheckTree.
"$AGENT" verify "$L" --pubkey "$P" --since "$W/old.ckpt" --json > "$W/since.json" ||
	fail "mai-agent verify --since the old checkpoint: $(cat "$W/since.json")"
"$CHECK" consistency "$P" "$W/old.ckpt" "$L/checkpoint" "$W/since.json" ||
	fail "consistency proof with tlog.CheckTree"

# 4. Witnesses: the kept checkpoint and the log's own, cosigned.
"$CHECK" cosign "$W/old.ckpt" witness.example/w1 "$W/old-cosigned.ckpt" "$W/witness.vkeys" ||
	fail "cosigning with Go"
out=$("$AGENT" verify "$L" --pubkey "$P" --since "$W/old-cosigned.ckpt" 2>&1)
case $out in
OK*consistency=ok*) ;;
*) fail "verify --since a cosigned checkpoint: $out" ;;
esac
"$CHECK" cosign "$L/checkpoint" witness.example/w2 "$W/cur-cosigned.ckpt" "$W/witness2.vkeys" ||
	fail "cosigning the current checkpoint"
cp "$W/cur-cosigned.ckpt" "$L/checkpoint"
out=$("$AGENT" verify "$L" --pubkey "$P" 2>&1)
case $out in
OK*checkpoint=ok*) ;;
*) fail "verify with a cosigned checkpoint in the log: $out" ;;
esac
"$CHECK" log "$P" "$L" > /dev/null || fail "Go on the log with its cosigned checkpoint"

# 5. A checkpoint of size 0 proves nothing, even with the real key's
# signature (made by Go's note.Sign from the agent's key file).
printf 'mai-test/audit\n0\n%s\n' "$(head -c 32 /dev/urandom | base64)" > "$W/zero.body"
"$CHECK" sign "$K" "$W/zero.body" "$W/zero.ckpt" || fail "note.Sign with the agent's key file"
out=$("$AGENT" verify "$L" --pubkey "$P" --since "$W/zero.ckpt" 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "verify --since a size-0 checkpoint exited $rc: $out"
case $out in
*"covers no records"*) ;;
*) fail "verify --since a size-0 checkpoint: $out" ;;
esac
# ... while a real one that Go signed with that key is accepted.
head -3 "$W/old.ckpt" > "$W/old.body"
"$CHECK" sign "$K" "$W/old.body" "$W/go-signed.ckpt" || fail "note.Sign of the old body"
"$AGENT" verify "$L" --pubkey "$P" --since "$W/go-signed.ckpt" > /dev/null ||
	fail "verify --since a checkpoint that Go's note.Sign signed"

[ $fails -eq 0 ] || exit 1
echo "ok: sumdb/note and sumdb/tlog agree with the agent's checkpoints and proofs; cosigned checkpoints accepted"
