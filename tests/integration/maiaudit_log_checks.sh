# Sourced by test_maiaudit.sh while the view is mounted: the files that come
# from the audit log, compared with 'mai-agent verify' and the audit
# library's own answers (view_audit_tool), tampering, appends while reading,
# and a large log. Uses MNT, STATE, T, MAI_AGENT, VIEW_AUDIT_TOOL and the
# helpers of test_maiaudit.sh.

AUDIT_DIR=$STATE/audit
KEY=$T/keys/audit.key
mkdir -p "$T/keys"
tool() {
	"$VIEW_AUDIT_TOOL" "$@" || fail "view_audit_tool $*"
}
pubkey_file() {
	for k in "$AUDIT_DIR/audit.pub" "$AUDIT_DIR/pubkey"; do
		[ -f "$k" ] && { echo "$k"; return; }
	done
	fail "no public key next to the log in $AUDIT_DIR"
}

tool fill "$AUDIT_DIR" "$KEY" 200
PUB=$(pubkey_file)

# ---- every file against the library -------------------------------------
tool verify "$AUDIT_DIR" "$PUB" >"$T/verify.expect"
grep -q "^OK n=200 " "$T/verify.expect" || fail "the library does not find the fresh log OK: $(cat "$T/verify.expect")"
same "$MNT/verify" "$T/verify.expect"
"$MAI_AGENT" verify "$STATE" --pubkey "$PUB" >"$T/verify.cli" || fail "mai-agent verify on the fresh log: exit $?"
same "$MNT/verify" "$T/verify.cli"
tool verify-json "$AUDIT_DIR" "$PUB" >"$T/verify.json.expect"
same "$MNT/verify.json" "$T/verify.json.expect"
tool head "$AUDIT_DIR" >"$T/head.expect"
same "$MNT/head" "$T/head.expect"
tool checkpoint "$AUDIT_DIR" >"$T/checkpoint.expect"
same "$MNT/checkpoint" "$T/checkpoint.expect"
same "$MNT/pubkey" "$PUB"
ok "verify equals 'mai-agent verify'; verify.json, head, checkpoint and pubkey equal the library's answers"

[ "$(ls "$MNT/entries" | wc -l)" = 200 ] || fail "entries/ lists $(ls "$MNT/entries" | wc -l) names for 200 records"
[ "$(ls "$MNT/entries" | head -1)" = 000000000000.json ] || fail "first entry name"
[ "$(ls "$MNT/entries" | tail -1)" = 000000000199.json ] || fail "last entry name"
mkdir "$T/dump"
tool dump "$AUDIT_DIR" "$T/dump"
for f in "$T"/dump/*.json; do
	same "$MNT/entries/${f##*/}" "$f"
done
[ -e "$MNT/entries/000000000200.json" ] && fail "entries/000000000200.json exists in a 200-record log"
[ -e "$MNT/entries/42.json" ] && fail "entries/42.json aliases a record"
for f in entries/000000000123.json checkpoint verify.json; do
	cat "$MNT/$f" >"$T/copy"
	size=$(wc -c <"$T/copy")
	[ "$(stat -c %s "$MNT/$f")" = "$size" ] || fail "$f: stat size $(stat -c %s "$MNT/$f") but $size bytes read"
	[ "$(tail -c 13 "$MNT/$f" | od -An -c)" = "$(tail -c 13 "$T/copy" | od -An -c)" ] || fail "$f: tail -c 13"
	[ "$(dd if="$MNT/$f" bs=5 skip=3 count=3 2>/dev/null | od -An -c)" = \
	  "$(dd if="$T/copy" bs=5 skip=3 count=3 2>/dev/null | od -An -c)" ] || fail "$f: dd bs=5 skip=3"
done
ok "entries/: 200 names, each record byte for byte as the library reads it; exact sizes, tail and dd agree"

# ---- one flipped byte: FAIL at the right record, then OK again -----------
# Two places in record 137: the middle of the stored line, and a byte of
# its JSON body near the end (a change only the hash can catch).
set -- $(tool locate "$AUDIT_DIR" 137)
SEG=$1
put_byte() {
	printf "$(printf '\\%03o' "$2")" | dd of="$SEG" bs=1 seek="$1" conv=notrunc 2>/dev/null
}
for POS in $(($2 + $3 / 2)) $(($2 + $3 - 4)); do
	orig=$(od -An -tu1 -j "$POS" -N1 "$SEG" | tr -d ' ')
	put_byte "$POS" $((orig ^ 1))
	cat "$MNT/verify" >"$T/verify.tampered"
	grep -q "^FAIL seq=137: " "$T/verify.tampered" ||
		fail "after flipping byte $POS (in record 137) of $SEG: $(cat "$T/verify.tampered")"
	tool verify "$AUDIT_DIR" "$PUB" >"$T/verify.expect"
	same "$T/verify.tampered" "$T/verify.expect"
	"$MAI_AGENT" verify "$STATE" --pubkey "$PUB" >"$T/verify.cli"
	[ $? -eq 1 ] || fail "mai-agent verify on the tampered log did not exit 1"
	same "$T/verify.tampered" "$T/verify.cli"
	grep -q '"ok": false' "$MNT/verify.json" || fail "verify.json after tampering: $(cat "$MNT/verify.json")"
	put_byte "$POS" "$orig"
	grep -q "^OK n=200 " "$MNT/verify" || fail "after restoring the byte: $(cat "$MNT/verify")"
	ok "a flipped byte in record 137: $(cut -c1-50 "$T/verify.tampered")...; restored: OK"
done

# ---- verify in a loop while a writer appends --------------------------------
tool fill "$AUDIT_DIR" "$KEY" 300 3000 &
WRITER=$!
reads=0
last=0
while kill -0 "$WRITER" 2>/dev/null; do
	cat "$MNT/verify" >"$T/loop.out"
	[ "$(wc -l <"$T/loop.out")" = 1 ] || fail "verify during appends is not one line: $(cat "$T/loop.out")"
	grep -q "^OK n=[0-9]* head=[0-9a-f]\{64\} checkpoint=" "$T/loop.out" ||
		fail "verify during appends: $(cat "$T/loop.out")"
	n=$(sed 's/^OK n=\([0-9]*\) .*/\1/' "$T/loop.out")
	[ "$n" -ge "$last" ] || fail "verify went back from n=$last to n=$n"
	last=$n
	reads=$((reads + 1))
done
wait "$WRITER" || fail "the writer failed"
WRITER=
grep -q "^OK n=500 " "$MNT/verify" || fail "after the appends: $(cat "$MNT/verify")"
[ "$(ls "$MNT/entries" | wc -l)" = 500 ] || fail "entries/ after the appends"
[ "$reads" -ge 5 ] || fail "only $reads reads during the appends: the loop proves nothing"
ok "$reads reads of verify while 300 records were appended: each one whole line, OK, n never going back"

# ---- a large log --------------------------------------------------------------
tool fill "$AUDIT_DIR" "$KEY" 99500
[ "$(ls "$MNT/entries" | wc -l)" = 100000 ] || fail "ls entries | wc -l on 100,000 records: $(ls "$MNT/entries" | wc -l)"
grep -q "^OK n=100000 " "$MNT/verify" || fail "verify on 100,000 records: $(cat "$MNT/verify")"
tool get "$AUDIT_DIR" 99999 >"$T/last.expect"
same "$MNT/entries/000000099999.json" "$T/last.expect"
ok "ls entries | wc -l = 100000; verify OK on 100,000 records; the last record found by number"
