/* Fault injection: every way of changing a signed log that
 * docs/ARCHITECTURE.md "What verification catches" lists must be caught, at the right first sequence number, and an untouched log
 * must never raise a false alarm. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "audit.h"
#include "audit_format.h"
#include "audit_fixture.h"
#include "audit_verify.h"
#include "checkpoint.h"
#include "hash.h"
#include "merkle.h"
#include "note_sign.h"
#include "fileio.h"
#include "macro.h"
#include "testdir.h"

#define N_RECORDS 1000

struct logfile {
	char *dir, *seg, *log_dir, *pub;
	char *data;          /* the untouched segment */
	size_t len;
	size_t offs[N_RECORDS + 1]; /* start of each record, and the end */
};

/* A 1,000-record log with a checkpoint made at 499 (kept aside as old.ckpt,
 * recorded in the log at seq 499) and records after it citing that
 * checkpoint; closing records the checkpoint of 999 at seq 999 and signs the
 * final one of 1000. */
static void make_log(const char *dir, struct logfile *lf)
{
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 499);
	assert_int_equal(audit_checkpoint_now(log), 0);
	lf->log_dir = xasprintf("%s/audit", dir);
	_cleanup_free_ char *ck = xasprintf("%s/checkpoint", lf->log_dir), *old = xasprintf("%s/old.ckpt", dir);
	size_t cl;
	_cleanup_free_ char *ckdata = fixture_read(ck, &cl);
	fixture_write(old, ckdata, cl);
	fixture_append(log, N_RECORDS - 501);
	audit_close(log);

	lf->dir = xstrdup(dir);
	lf->seg = xasprintf("%s/seg-000000000000.log", lf->log_dir);
	lf->pub = xasprintf("%s/k.pub", dir);
	lf->data = fixture_read(lf->seg, &lf->len);
	size_t n = 0;
	lf->offs[n++] = 0;
	for (size_t i = 0; i < lf->len; i++)
		if (lf->data[i] == '\n')
			lf->offs[n++] = i + 1;
	assert_int_equal(n, N_RECORDS + 1);
}

static void free_log(struct logfile *lf)
{
	free(lf->dir);
	free(lf->seg);
	free(lf->log_dir);
	free(lf->pub);
	free(lf->data);
}

static uint64_t record_at(const struct logfile *lf, size_t off)
{
	size_t lo = 0, hi = N_RECORDS;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (lf->offs[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void verify(const struct logfile *lf, const char *pub, struct audit_verify_report *rep)
{
	assert_int_equal(audit_verify_log(lf->log_dir, pub, rep), 0);
}

static void expect_fail(const struct logfile *lf, uint64_t seq, const char *reason_part)
{
	struct audit_verify_report rep;
	verify(lf, lf->pub, &rep);
	if (rep.ok || rep.first_bad_seq != seq || (reason_part && !strstr(rep.reason, reason_part))) {
		_cleanup_free_ char *line = audit_verify_report_line(&rep);
		fail_msg("expected FAIL seq=%llu (%s), got: %s", (unsigned long long)seq,
			 reason_part ? reason_part : "", line);
	}
	audit_verify_report_clear(&rep);
}

static void restore(const struct logfile *lf)
{
	fixture_write(lf->seg, lf->data, lf->len);
}

static void test_untouched_log_verifies(void **state)
{
	struct logfile lf;
	make_log(*state, &lf);
	struct audit_verify_report rep;
	verify(&lf, lf.pub, &rep);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, N_RECORDS);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_OK);
	assert_int_equal(rep.checkpoint_size, N_RECORDS);
	assert_memory_equal(rep.head_hex, lf.data + lf.offs[N_RECORDS - 1], 64);
	audit_verify_report_clear(&rep);
	free_log(&lf);
}

/* 600 random single-bit flips anywhere in the segment: each is caught, and
 * the first bad sequence number is the record that holds the flipped bit. */
static void test_random_bit_flips(void **state)
{
	struct logfile lf;
	make_log(*state, &lf);
	srandom(20261122);
	_cleanup_free_ char *copy = xmalloc(lf.len);
	for (int trial = 0; trial < 600; trial++) {
		size_t off = (size_t)random() % lf.len;
		int bit = (int)(random() % 8);
		memcpy(copy, lf.data, lf.len);
		copy[off] ^= (char)(1 << bit);
		fixture_write(lf.seg, copy, lf.len);
		struct audit_verify_report rep;
		verify(&lf, lf.pub, &rep);
		uint64_t want = record_at(&lf, off);
		if (rep.ok || rep.first_bad_seq != want)
			fail_msg("trial %d: bit %d of byte %zu (record %llu): %s seq=%llu %s", trial, bit, off,
				 (unsigned long long)want, rep.ok ? "OK" : "FAIL",
				 (unsigned long long)rep.first_bad_seq, rep.reason ? rep.reason : "");
		audit_verify_report_clear(&rep);
	}
	restore(&lf);
	free_log(&lf);
}

/* Builds the segment from records in the given order (indices into lf). */
static void write_records(const struct logfile *lf, const size_t *order, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += lf->offs[order[i] + 1] - lf->offs[order[i]];
	_cleanup_free_ char *buf = xmalloc(total + 1);
	size_t pos = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = lf->offs[order[i] + 1] - lf->offs[order[i]];
		memcpy(buf + pos, lf->data + lf->offs[order[i]], l);
		pos += l;
	}
	fixture_write(lf->seg, buf, total);
}

static void test_deleted_inserted_duplicated_reordered(void **state)
{
	struct logfile lf;
	make_log(*state, &lf);
	static size_t order[N_RECORDS + 1];
	size_t n;

	/* Delete record 321. */
	n = 0;
	for (size_t i = 0; i < N_RECORDS; i++)
		if (i != 321)
			order[n++] = i;
	write_records(&lf, order, n);
	expect_fail(&lf, 321, "deleted");

	/* Duplicate record 321 right after itself. */
	n = 0;
	for (size_t i = 0; i < N_RECORDS; i++) {
		order[n++] = i;
		if (i == 321)
			order[n++] = i;
	}
	write_records(&lf, order, n);
	expect_fail(&lf, 322, "duplicated or reordered");

	/* Swap records 600 and 601. */
	for (size_t i = 0; i < N_RECORDS; i++)
		order[i] = i;
	order[600] = 601;
	order[601] = 600;
	write_records(&lf, order, N_RECORDS);
	expect_fail(&lf, 600, NULL);

	/* Insert a well-formed record made by someone without the key: a line
	 * from a different log, hashed correctly, placed at 700. */
	n = 0;
	for (size_t i = 0; i < N_RECORDS; i++) {
		if (i == 700)
			order[n++] = 5; /* a valid record from elsewhere in the log */
		order[n++] = i;
	}
	write_records(&lf, order, n);
	expect_fail(&lf, 700, NULL);

	/* Delete the last record: the log now ends below the checkpoint. */
	for (size_t i = 0; i < N_RECORDS; i++)
		order[i] = i;
	write_records(&lf, order, N_RECORDS - 1);
	expect_fail(&lf, N_RECORDS - 1, "records were cut");

	/* Cut the tail well below the checkpoint. */
	write_records(&lf, order, 640);
	expect_fail(&lf, 640, "records were cut");

	/* Cut in the middle of a record: the partial line is ignored, the cut is not. */
	fixture_write(lf.seg, lf.data, lf.offs[900] + 17);
	expect_fail(&lf, 900, "records were cut");

	restore(&lf);
	free_log(&lf);
}

static void test_rewritten_with_another_key(void **state)
{
	const char *dir = *state;
	struct logfile lf;
	make_log(dir, &lf);
	/* An attacker rebuilds the whole log with a key of their own, same
	 * origin, and publishes their public key next to it. */
	_cleanup_free_ char *other = xasprintf("%s/other", dir), *err = NULL;
	assert_int_equal(fileio_mkdir_p(other, 0700), 0);
	fixture_keys(other, "evil", "mai.test/audit");
	struct audit_options o = fixture_options(other, "evil", 0);
	struct audit_log *log = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, N_RECORDS);
	audit_close(log);
	struct audit_verify_report rep;
	/* Against the key the user kept: refused. */
	_cleanup_free_ char *ol = xasprintf("%s/audit", other);
	assert_int_equal(audit_verify_log(ol, lf.pub, &rep), 0);
	assert_false(rep.ok);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_BAD_SIGNATURE);
	assert_non_null(strstr(rep.reason, "no signature by key 'mai.test/audit'"));
	audit_verify_report_clear(&rep);

	/* The original log with the attacker's checkpoint put next to it. */
	_cleanup_free_ char *ock = xasprintf("%s/checkpoint", ol), *ck = xasprintf("%s/checkpoint", lf.log_dir);
	size_t l;
	_cleanup_free_ char *evil = fixture_read(ock, &l);
	fixture_write(ck, evil, l);
	verify(&lf, lf.pub, &rep);
	assert_false(rep.ok);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_BAD_SIGNATURE);
	audit_verify_report_clear(&rep);
	free_log(&lf);
}

static void test_old_checkpoint_swapped_in(void **state)
{
	const char *dir = *state;
	struct logfile lf;
	make_log(dir, &lf);
	_cleanup_free_ char *old = xasprintf("%s/old.ckpt", dir), *ck = xasprintf("%s/checkpoint", lf.log_dir);
	size_t l;
	_cleanup_free_ char *data = fixture_read(old, &l);
	fixture_write(ck, data, l);
	/* The log is untouched but its checkpoint is the one of 499: the record of
	 * the checkpoint of 999 (seq 999, written by the writer after it signed
	 * it) shows that a newer one was signed. */
	struct audit_verify_report rep;
	verify(&lf, lf.pub, &rep);
	assert_false(rep.ok);
	assert_int_equal(rep.first_bad_seq, 999);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_MISMATCH);
	assert_non_null(strstr(rep.reason, "cites a later checkpoint of 999: an older checkpoint was put back"));
	audit_verify_report_clear(&rep);

	/* The final checkpoint (1000) swapped for the recorded one (999) is the one
	 * step the log cannot show: they differ only by that checkpoint record,
	 * which no checkpoint can cover, so the log reads as a writer that
	 * stopped right after recording its checkpoint: intact, checkpoint ok. */
	_cleanup_free_ char *sig = xasprintf("%s/k.key", dir);
	struct note_signer *signer = NULL;
	_cleanup_free_ char *serr = NULL, *note = NULL, *seg = xasprintf("%s/seg-000000000000.log", lf.log_dir);
	assert_int_equal(note_signer_load(sig, &signer, &serr), 0);
	struct merkle_compact mc;
	merkle_compact_init(&mc);
	for (size_t i = 0; i < 999; i++) {
		uint8_t h[32];
		char hex[65];
		memcpy(hex, lf.data + lf.offs[i], 64);
		hex[64] = '\0';
		assert_int_equal(hash_from_hex(hex, h, 32), 0);
		merkle_compact_append(&mc, h);
	}
	uint8_t root[32];
	merkle_compact_root(&mc, root);
	assert_int_equal(checkpoint_sign(signer, "mai.test/audit", 999, root, &note), 0);
	note_signer_free(signer);
	fixture_write(ck, note, strlen(note));
	verify(&lf, lf.pub, &rep);
	assert_true(rep.ok);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_OK);
	audit_verify_report_clear(&rep);

	/* A log that went on after a later checkpoint: the writer cites it in every
	 * record, so putting back the old one is caught at the first citing record. */
	fixture_keys(dir, "k", "mai.test/audit");
	free_log(&lf);
	(void)testdir_remove_tree(ck);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *err = NULL;
	(void)testdir_remove_tree(log_dir);
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 100);
	assert_int_equal(audit_checkpoint_now(log), 0);
	data = (free(data), fixture_read(ck, &l));
	fixture_append(log, 100);
	assert_int_equal(audit_checkpoint_now(log), 0);
	fixture_append(log, 100);
	audit_close(log);
	fixture_write(ck, data, l);
	_cleanup_free_ char *pub = xasprintf("%s/k.pub", dir);
	assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
	assert_false(rep.ok);
	assert_int_equal(rep.first_bad_seq, 201); /* the record of the second checkpoint */
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_MISMATCH);
	assert_non_null(strstr(rep.reason, "an older checkpoint was put back"));
	audit_verify_report_clear(&rep);
}

static void load_ckpt(const char *path, const char *pub, struct checkpoint *ck)
{
	struct note_verifier *v = NULL;
	_cleanup_free_ char *err = NULL, *note = NULL;
	size_t len;
	assert_int_equal(note_verifier_load(pub, &v, &err), 0);
	note = fixture_read(path, &len);
	assert_int_equal(checkpoint_open(v, note, len, ck, &err), 0);
	note_verifier_free(v);
}

static void test_since_checkpoint(void **state)
{
	const char *dir = *state;
	struct logfile lf;
	make_log(dir, &lf);
	_cleanup_free_ char *old = xasprintf("%s/old.ckpt", dir);
	struct audit_verify_report rep;
	/* The log only grew: a consistency proof from 499 to 1000 records,
	 * computed from the log, leads from the kept root to the log's. */
	assert_int_equal(audit_verify_log_since(lf.log_dir, lf.pub, old, &rep), 0);
	assert_true(rep.ok);
	assert_true(rep.consistency_checked && rep.consistency_ok);
	assert_int_equal(rep.consistency_from, 499);
	assert_int_equal(rep.consistency_to, N_RECORDS);
	assert_true(rep.consistency_proof_n > 0);
	_cleanup_free_ char *line = audit_verify_report_line(&rep);
	assert_non_null(strstr(line, " consistency=ok from=499 to=1000 proof="));
	json_t *j = audit_verify_report_json(&rep);
	json_t *cj = json_object_get(j, "consistency");
	assert_true(json_is_true(json_object_get(cj, "ok")));
	assert_int_equal(json_array_size(json_object_get(cj, "proof")), rep.consistency_proof_n);
	json_decref(j);
	/* The proof is what is checked: one flipped bit in it and it fails. */
	uint8_t kept_root[32], log_root[32];
	struct checkpoint kc, lc;
	load_ckpt(old, lf.pub, &kc);
	_cleanup_free_ char *ckpath = xasprintf("%s/checkpoint", lf.log_dir);
	load_ckpt(ckpath, lf.pub, &lc);
	memcpy(kept_root, kc.root, 32);
	memcpy(log_root, lc.root, 32);
	assert_int_equal(merkle_verify_consistency(499, N_RECORDS, kept_root, log_root,
						   (const uint8_t(*)[32])rep.consistency_proof,
						   rep.consistency_proof_n), 0);
	rep.consistency_proof[0][7] ^= 0x10;
	assert_int_equal(merkle_verify_consistency(499, N_RECORDS, kept_root, log_root,
						   (const uint8_t(*)[32])rep.consistency_proof,
						   rep.consistency_proof_n), -EBADMSG);
	checkpoint_clear(&kc);
	checkpoint_clear(&lc);
	audit_verify_report_clear(&rep);
	/* Since the log's own checkpoint, kept when nothing came after it. */
	assert_int_equal(audit_verify_log_since(lf.log_dir, lf.pub, ckpath, &rep), 0);
	if (!rep.ok)
		fail_msg("%s", rep.reason);
	assert_true(rep.consistency_checked && rep.consistency_ok);
	assert_int_equal(rep.consistency_from, N_RECORDS);
	assert_int_equal(rep.consistency_to, N_RECORDS);
	audit_verify_report_clear(&rep);
	/* Shrunk below the kept checkpoint. */
	static size_t order[N_RECORDS];
	for (size_t i = 0; i < N_RECORDS; i++)
		order[i] = i;
	write_records(&lf, order, 400);
	assert_int_equal(audit_verify_log_since(lf.log_dir, lf.pub, old, &rep), 0);
	assert_false(rep.ok);
	assert_non_null(strstr(rep.reason, "records were cut"));
	audit_verify_report_clear(&rep);

	/* Rebuilt from scratch with the real key (a stolen key): the log and its
	 * own checkpoint agree, but the checkpoint the user kept does not. */
	(void)testdir_remove_tree(lf.log_dir);
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, N_RECORDS);
	audit_close(log);
	assert_int_equal(audit_verify_log(lf.log_dir, lf.pub, &rep), 0);
	assert_true(rep.ok);
	audit_verify_report_clear(&rep);
	assert_int_equal(audit_verify_log_since(lf.log_dir, lf.pub, old, &rep), 0);
	assert_false(rep.ok);
	assert_true(rep.consistency_checked && !rep.consistency_ok);
	assert_non_null(strstr(rep.reason, "the consistency proof from"));
	assert_non_null(strstr(rep.reason, "history rewritten"));
	audit_verify_report_clear(&rep);
	/* An unreadable --since file is an error, not a verdict. */
	_cleanup_free_ char *missing = xasprintf("%s/nope.ckpt", dir);
	assert_int_equal(audit_verify_log_since(lf.log_dir, lf.pub, missing, &rep), -ENOENT);
	audit_verify_report_clear(&rep);
	free_log(&lf);
}

/* --since against a log that cannot answer for the kept checkpoint: a log
 * shorter than it (another log signed with the same key), a log whose
 * checkpoint is older than the kept one (put back, no record citing a
 * later one), and a log without a checkpoint of its own. Each fails and
 * says why. */
static void test_since_refusals(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ char *a_dir = xasprintf("%s/audit", dir), *b_dir = xasprintf("%s/b", dir);
	_cleanup_free_ char *ck = xasprintf("%s/checkpoint", a_dir), *five = xasprintf("%s/five.ckpt", dir);
	_cleanup_free_ char *later = xasprintf("%s/later.ckpt", dir);
	struct audit_verify_report rep;
	size_t len;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 5);
	assert_int_equal(audit_checkpoint_now(log), 0);
	_cleanup_free_ char *five_text = fixture_read(ck, &len);
	fixture_write(five, five_text, len);
	fixture_append(log, 5);
	assert_int_equal(audit_checkpoint_now(log), 0); /* 11 records: cited by none after it */
	_cleanup_free_ char *ten_text = fixture_read(ck, &len);
	audit_close(log);                                 /* records it, signs 12 */
	_cleanup_free_ char *later_text = fixture_read(ck, &len);
	fixture_write(later, later_text, len);

	o.log_dir = b_dir;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 2);
	audit_close(log);
	assert_int_equal(audit_verify_log_since(b_dir, pub, five, &rep), 0);
	assert_false(rep.ok);
	if (!strstr(rep.reason, "covers 5 records but the log has only 3: records were cut"))
		fail_msg("shorter log: %s", rep.reason);
	audit_verify_report_clear(&rep);

	fixture_write(ck, ten_text, strlen(ten_text));
	assert_int_equal(audit_verify_log_since(a_dir, pub, later, &rep), 0);
	assert_false(rep.ok);
	if (!strstr(rep.reason, "the log's checkpoint covers 11 records, fewer than the 12 of ") ||
	    !strstr(rep.reason, "an older checkpoint was put back"))
		fail_msg("older checkpoint put back: %s", rep.reason);
	audit_verify_report_clear(&rep);

	assert_int_equal(unlink(ck), 0);
	assert_int_equal(audit_verify_log_since(a_dir, pub, five, &rep), 0);
	assert_false(rep.ok);
	if (!strstr(rep.reason, "no signed checkpoint, the log's authorship cannot be checked"))
		fail_msg("no checkpoint: %s", rep.reason);
	audit_verify_report_clear(&rep);
}

/* Segments over 1 MiB are checked in two halves on two threads: flips on
 * either side of the cut, and right at it, are still caught at the right
 * record, and the untouched log verifies. */
static void test_two_thread_halves(void **state)
{
	const char *dir = *state;
	fixture_closed_log(dir, 0, 3999); /* and the record of the checkpoint made at close */
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ char *seg = xasprintf("%s/seg-000000000000.log", log_dir);
	size_t len;
	_cleanup_free_ char *data = fixture_read(seg, &len), *copy = xmalloc(len);
	assert_true(len > (1 << 20));
	static size_t offs[4001];
	size_t n = 0;
	offs[n++] = 0;
	for (size_t i = 0; i < len; i++)
		if (data[i] == '\n')
			offs[n++] = i + 1;
	struct audit_verify_report rep;
	assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 4000);
	audit_verify_report_clear(&rep);
	srandom(7);
	for (int trial = 0; trial < 150; trial++) {
		/* A third of the trials land within a few records of the middle. */
		size_t off = trial % 3 == 0 ? len / 2 - 2000 + (size_t)random() % 4000 : (size_t)random() % len;
		size_t want = 0;
		while (offs[want + 1] <= off)
			want++;
		memcpy(copy, data, len);
		copy[off] ^= (char)(1 << (random() % 8));
		fixture_write(seg, copy, len);
		assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
		if (rep.ok || rep.first_bad_seq != want)
			fail_msg("trial %d: byte %zu (record %zu): seq=%llu %s", trial, off, want,
				 (unsigned long long)rep.first_bad_seq, rep.reason ? rep.reason : "OK");
		audit_verify_report_clear(&rep);
	}
	/* Delete the record that starts the second half. */
	size_t mid = 0;
	while (offs[mid] < len / 2)
		mid++;
	for (size_t k = mid - 1; k <= mid + 1; k++) {
		memcpy(copy, data, offs[k]);
		memcpy(copy + offs[k], data + offs[k + 1], len - offs[k + 1]);
		fixture_write(seg, copy, len - (offs[k + 1] - offs[k]));
		assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
		assert_false(rep.ok);
		assert_int_equal(rep.first_bad_seq, k);
		audit_verify_report_clear(&rep);
	}
}

/* The same over a rotated log: a flip in any segment is caught at its record,
 * and a record moved across a segment boundary is caught too. */
static void test_rotated_log(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.rotate_size = 32768;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, N_RECORDS - 1);
	audit_close(log); /* and the record of the checkpoint made at close */
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t nseg = 0;
	assert_int_equal(audit_segments_list(log_dir, &firsts, &nseg), 0);
	assert_true(nseg >= 5);
	struct audit_verify_report rep;
	assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, N_RECORDS);
	audit_verify_report_clear(&rep);
	srandom(99);
	for (int trial = 0; trial < 200; trial++) {
		size_t si = (size_t)random() % nseg;
		_cleanup_free_ char *seg = audit_segment_path(log_dir, firsts[si], "log");
		size_t len;
		_cleanup_free_ char *data = fixture_read(seg, &len), *copy = xmalloc(len);
		size_t off = (size_t)random() % len, want = firsts[si];
		for (size_t i = 0; i < off; i++)
			want += data[i] == '\n';
		memcpy(copy, data, len);
		copy[off] ^= (char)(1 << (random() % 8));
		fixture_write(seg, copy, len);
		assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
		if (rep.ok || rep.first_bad_seq != want)
			fail_msg("trial %d: segment %zu byte %zu (record %zu): seq=%llu %s", trial, si, off, want,
				 (unsigned long long)rep.first_bad_seq, rep.reason ? rep.reason : "OK");
		audit_verify_report_clear(&rep);
		fixture_write(seg, data, len);
	}
	/* Move the first record of segment 2 to the end of segment 1: the records
	 * still chain, but segment 2's name no longer says where it starts, which
	 * is reported at the first record that segment should have held next. */
	_cleanup_free_ char *s1 = audit_segment_path(log_dir, firsts[1], "log");
	_cleanup_free_ char *s2 = audit_segment_path(log_dir, firsts[2], "log");
	size_t l1, l2;
	_cleanup_free_ char *d1 = fixture_read(s1, &l1), *d2 = fixture_read(s2, &l2);
	size_t cut = (size_t)(strchr(d2, '\n') - d2) + 1;
	_cleanup_free_ char *n1 = xmalloc(l1 + cut);
	memcpy(n1, d1, l1);
	memcpy(n1 + l1, d2, cut);
	fixture_write(s1, n1, l1 + cut);
	fixture_write(s2, d2 + cut, l2 - cut);
	assert_int_equal(audit_verify_log(log_dir, pub, &rep), 0);
	assert_false(rep.ok);
	assert_int_equal(rep.first_bad_seq, firsts[2] + 1);
	assert_non_null(strstr(rep.reason, "(segment missing or inserted)"));
	audit_verify_report_clear(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_untouched_log_verifies, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_random_bit_flips, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_deleted_inserted_duplicated_reordered, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rewritten_with_another_key, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_old_checkpoint_swapped_in, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_since_checkpoint, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_two_thread_halves, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rotated_log, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_since_refusals, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
