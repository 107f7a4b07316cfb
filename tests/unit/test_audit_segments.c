/* The log's segments on real files: an empty last segment, rotation (also
 * under appends from many threads, with group commit) keeping one chain,
 * an empty log's reader, and retention cutting old segments while the rest
 * stays verifiable. The rest of the writer, reader and verifier is in
 * test_audit.c. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "audit.h"
#include "audit_fixture.h"
#include "audit_format.h"
#include "audit_reader.h"
#include "audit_verify.h"
#include "fault.h"
#include "fileio.h"
#include "macro.h"
#include "testdir.h"

/* A segment started by a rotation that got no record yet is empty: the
 * log verifies as it did before it. */
static void test_empty_last_segment(void **state)
{
	const char *dir = *state;
	fixture_closed_log(dir, 0, 3);
	_cleanup_free_ char *before = fixture_verify_dir(dir, "k");
	assert_true(strncmp(before, "OK n=", 5) == 0);
	unsigned long long n = strtoull(before + 5, NULL, 10);
	_cleanup_free_ char *seg = xasprintf("%s/audit/seg-%012llu.log", dir, n);
	fixture_write(seg, "", 0);
	_cleanup_free_ char *after = fixture_verify_dir(dir, "k");
	if (strcmp(after, before) != 0)
		fail_msg("%s / %s", before, after);
}


struct thread_arg {
	struct audit_log *log;
	uint64_t seqs[200];
};

static void *appender(void *p)
{
	struct thread_arg *a = p;
	for (int i = 0; i < 200; i++) {
		struct audit_position pos;
		json_t *f = json_pack("{s:i}", "i", i);
		if (audit_append(a->log, "execution", f, &pos) == 0)
			a->seqs[i] = pos.seq;
		else
			a->seqs[i] = UINT64_MAX;
		json_decref(f);
	}
	return NULL;
}

/* Eight threads append 200 records each to log at once. */
static void append_from_threads(struct audit_log *log, struct thread_arg args[8])
{
	pthread_t th[8];
	for (int i = 0; i < 8; i++) {
		args[i].log = log;
		assert_int_equal(pthread_create(&th[i], NULL, appender, &args[i]), 0);
	}
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
}

static void test_group_commit_from_threads(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 1);
	o.group_commit_delay_us = 200;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	static struct thread_arg args[8];
	append_from_threads(log, args);
	static uint8_t seen[1600];

	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 200; j++) {
			assert_true(args[i].seqs[j] < 1600);
			assert_false(seen[args[i].seqs[j]]);
			seen[args[i].seqs[j]] = 1;
			/* Each thread's own records come back in the order it wrote them. */
			if (j)
				assert_true(args[i].seqs[j] > args[i].seqs[j - 1]);
		}
	assert_int_equal(audit_size(log), 1600);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK n=1601 ", 10) == 0); /* and the checkpoint record */
}

/* Threads appending while segments rotate: every segment is named by its
 * first record, and every record is found by number. */
static void test_rotation_under_concurrent_appends(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.rotate_size = 8192;
	o.group_commit_delay_us = 100;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	static struct thread_arg args[8];
	append_from_threads(log, args);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK n=1601 ", 10) == 0);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir);
	struct audit_reader *r = NULL;
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_count(r), 1601);
	for (uint64_t seq = 0; seq < 1600; seq++) {
		_cleanup_free_ char *json = NULL;
		size_t len;
		assert_int_equal(audit_reader_get_json(r, seq, &json, &len), 0);
		_cleanup_free_ char *want = xasprintf("},\"seq\":%llu,", (unsigned long long)seq);
		assert_non_null(strstr(json, want));
	}
	audit_reader_close(r);
}

/* A log directory the writer has not written yet (the audit view may
 * start first): the reader opens it, and it has no records. */
static void test_reader_of_an_empty_log(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *err = NULL;
	struct audit_reader *r = NULL;
	char hex[65] = "x";
	assert_int_equal(audit_reader_open(dir, &r, &err), 0);
	assert_int_equal(audit_reader_count(r), 0);
	assert_int_equal(audit_reader_head_hex(r, hex), 0);
	assert_string_equal(hex, "");
	char *rec = NULL;
	size_t len;
	assert_int_equal(audit_reader_get(r, 0, &rec, &len), -ENOENT);
	audit_reader_close(r);
}

static void test_rotation_keeps_one_chain(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.rotate_size = 4096;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 200);
	audit_close(log);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir);
	struct audit_reader *r = NULL;
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_count(r), 201);
	_cleanup_free_ char *json = NULL;
	size_t len;
	assert_int_equal(audit_reader_get_json(r, 150, &json, &len), 0);
	assert_non_null(strstr(json, "\"seq\":150,"));
	audit_reader_close(r);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK n=201 ", 9) == 0);
	/* More than one segment, and removing one in the middle is caught. */
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t n = 0;
	assert_int_equal(audit_segments_list(log_dir, &firsts, &n), 0);
	assert_true(n >= 3);
	_cleanup_free_ char *mid = xasprintf("%s/seg-%012llu.log", log_dir, (unsigned long long)firsts[1]);
	_cleanup_free_ char *want = xasprintf("FAIL seq=%llu: ", (unsigned long long)firsts[1]);
	assert_int_equal(unlink(mid), 0);
	_cleanup_free_ char *bad = fixture_verify_dir(dir, "k");
	assert_true(strncmp(bad, want, strlen(want)) == 0);
	/* The writer's start refuses it too, and a segment before the last cut
	 * short: a partial record inside the log, not a torn tail. */
	assert_int_equal(audit_open(&o, &log, &err), -EBADMSG);
	_cleanup_free_ char *starts = xasprintf("starts at seq %llu, expected %llu",
						(unsigned long long)firsts[2], (unsigned long long)firsts[1]);
	if (!strstr(err, starts) || !strstr(err, "quarantine"))
		fail_msg("the restart message: %s", err);
	_cleanup_free_ char *seg0 = xasprintf("%s/seg-%012llu.log", log_dir, (unsigned long long)firsts[0]);
	struct stat st;
	assert_int_equal(stat(seg0, &st), 0);
	assert_int_equal(truncate(seg0, st.st_size - 5), 0);
	free(err);
	err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), -EBADMSG);
	if (!strstr(err, "seg-000000000000.log: partial record inside the log at offset") ||
	    !strstr(err, "quarantine"))
		fail_msg("the restart message: %s", err);
}

/* A writer on dir/audit (keys dir/k.*) that rotates at rotate_size bytes
 * and keeps segments an hour; its options in *o. */
static struct audit_log *open_retaining(const char *dir, uint64_t rotate_size, struct audit_options *o)
{
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	fixture_keys(dir, "k", "mai.test/audit");
	*o = fixture_options(dir, "k", 0);
	o->rotate_size = rotate_size;
	o->retention_age_s = 3600;
	if (audit_open(o, &log, &err) < 0)
		fail_msg("audit_open: %s", err);
	return log;
}

/* Retention drops old segments only under the signed checkpoint, and what
 * remains (plus what is appended later) still verifies, also by sidecar. */
/* A cut so early that its tree nodes fill no whole page frees none of
 * them and succeeds. */
static void test_small_retention_cut(void **state)
{
	const char *dir = *state;
	struct audit_options o;
	struct audit_log *log = open_retaining(dir, 1024, &o);
	fixture_append(log, 8);
	assert_int_equal(audit_checkpoint_now(log), 0);
	assert_int_equal(audit_retention_now(log, time(NULL) + 7200), 0);
	fixture_append(log, 2);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK n=", 5) == 0);
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t n = 0;
	assert_int_equal(audit_segments_list(o.log_dir, &firsts, &n), 0);
	assert_true(firsts[0] > 0); /* something was cut */
}

static void test_retention_keeps_the_rest_verifiable(void **state)
{
	const char *dir = *state;
	struct audit_options o;
	struct audit_log *log = open_retaining(dir, 4096, &o);
	_cleanup_free_ char *err = NULL, *log_dir = xasprintf("%s/audit", dir);
	fixture_append(log, 100);
	/* Nothing is old enough yet; then everything is, but only up to the
	 * checkpoint (none yet: nothing goes). */
	assert_int_equal(audit_retention_now(log, time(NULL)), 0);
	assert_int_equal(audit_retention_now(log, time(NULL) + 7200), 0);
	_cleanup_free_ uint64_t *before = NULL;
	size_t nbefore = 0;
	assert_int_equal(audit_segments_list(log_dir, &before, &nbefore), 0);
	assert_true(nbefore >= 4);
	assert_int_equal(before[0], 0);
	/* Two of the segments the cut will remove, to put back below. */
	_cleanup_free_ char *old0 = audit_segment_path(log_dir, before[0], "log");
	_cleanup_free_ char *old1 = audit_segment_path(log_dir, before[1], "log");
	size_t len0, len1;
	_cleanup_free_ char *text0 = fixture_read(old0, &len0), *text1 = fixture_read(old1, &len1);
	assert_int_equal(audit_checkpoint_now(log), 0);
	assert_int_equal(audit_retention_now(log, time(NULL) + 7200), 0);
	_cleanup_free_ uint64_t *after = NULL;
	size_t nafter = 0;
	assert_int_equal(audit_segments_list(log_dir, &after, &nafter), 0);
	assert_int_equal(nafter, 1); /* only the segment being written */
	fixture_append(log, 20);
	audit_close(log);

	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	/* 100 + the checkpoint's record + retention event + 20 + close's checkpoint record */
	assert_true(strncmp(line, "OK n=123 ", 9) == 0);
	/* A crash after the anchor was written and before the old segments
	 * were removed leaves them below it: they are not part of the log. */
	fixture_write(old0, text0, len0);
	fixture_write(old1, text1, len1);
	_cleanup_free_ char *leftover = fixture_verify_dir(dir, "k");
	assert_true(strncmp(leftover, "OK n=123 ", 9) == 0);
	/* A checkpoint kept from after the cut, for --since below. */
	_cleanup_free_ char *ckpt = xasprintf("%s/checkpoint", log_dir), *kept = xasprintf("%s/kept", dir);
	size_t klen;
	_cleanup_free_ char *ktext = fixture_read(ckpt, &klen);
	fixture_write(kept, ktext, klen);

	/* The writer reopens on the anchor (past those leftovers) and goes on;
	 * proofs still work. */
	assert_int_equal(audit_open(&o, &log, &err), 0);
	assert_int_equal(unlink(old0), 0);
	assert_int_equal(unlink(old1), 0);
	fixture_append(log, 5);
	uint64_t seqs[2] = { 110, 125 };
	_cleanup_free_ char *sc = xasprintf("%s/job.audit", dir), *pub = xasprintf("%s/k.pub", dir);
	assert_int_equal(audit_sidecar_write(log, seqs, 2, sc, NULL), 0);
	uint64_t dropped[1] = { 3 };
	assert_int_equal(audit_sidecar_write(log, dropped, 1, sc, NULL), -ENOENT);
	assert_int_equal(audit_sidecar_write(log, seqs, 2, sc, NULL), 0);
	audit_close(log);
	_cleanup_free_ char *line2 = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line2, "OK n=129 ", 9) == 0); /* 5 more and the sidecar's checkpoint record */
	struct audit_verify_report rep;
	assert_int_equal(audit_verify_sidecar(sc, pub, &rep), 0);
	assert_true(rep.ok);
	audit_verify_report_clear(&rep);
	/* The log only grew since the kept checkpoint, proved from the anchor. */
	assert_int_equal(audit_verify_log_since(log_dir, pub, kept, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 129);
	audit_verify_report_clear(&rep);

	/* A forged anchor cannot match the signed root. */
	_cleanup_free_ char *base = xasprintf("%s/base", log_dir);
	size_t len;
	_cleanup_free_ char *text = fixture_read(base, &len);
	char *last = strrchr(text, '\n');
	last[-1] = last[-1] == '0' ? '1' : '0';
	fixture_write(base, text, len);
	_cleanup_free_ char *bad = fixture_verify_dir(dir, "k");
	assert_true(strncmp(bad, "FAIL seq=0: records 0..", 23) == 0);
}

/* What verify says of a log cut by retention and then damaged, each at the
 * first record it cannot vouch for: a --since checkpoint older than the cut
 * (it cannot be checked against this log), the log's own checkpoint swapped
 * for one below the cut, a retention anchor that cannot be read, and the
 * first segment after the anchor removed. */
static void test_retention_cut_damaged(void **state)
{
	const char *dir = *state;
	struct audit_options o;
	struct audit_log *log = open_retaining(dir, 1024, &o);
	_cleanup_free_ char *err = NULL, *log_dir = xasprintf("%s/audit", dir);
	_cleanup_free_ char *ckpt = xasprintf("%s/checkpoint", log_dir), *early = xasprintf("%s/early", dir);
	_cleanup_free_ char *pub = xasprintf("%s/k.pub", dir), *base = xasprintf("%s/base", log_dir);
	fixture_append(log, 3);
	assert_int_equal(audit_checkpoint_now(log), 0);
	size_t elen, clen, blen;
	_cleanup_free_ char *etext = fixture_read(ckpt, &elen);
	fixture_write(early, etext, elen);
	fixture_append(log, 40);
	assert_int_equal(audit_checkpoint_now(log), 0);
	assert_int_equal(audit_retention_now(log, time(NULL) + 7200), 0);
	fixture_append(log, 20); /* a few more segments after the cut */
	audit_close(log);
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t n = 0;
	assert_int_equal(audit_segments_list(log_dir, &firsts, &n), 0);
	if (firsts[0] <= 4 || n < 2)
		fail_msg("the cut left %zu segment(s) from seq %llu", n, (unsigned long long)firsts[0]);
	_cleanup_free_ char *ok = fixture_verify_dir(dir, "k");
	assert_true(strncmp(ok, "OK n=", 5) == 0);

	struct audit_verify_report rep;
	assert_int_equal(audit_verify_log_since(log_dir, pub, early, &rep), 0);
	assert_false(rep.ok);
	assert_non_null(strstr(rep.reason, "/early is older than the retention cut (seq "));
	assert_non_null(strstr(rep.reason, "): it cannot be checked against this log"));
	audit_verify_report_clear(&rep);

	_cleanup_free_ char *ctext = fixture_read(ckpt, &clen);
	fixture_write(ckpt, etext, elen);
	_cleanup_free_ char *want = xasprintf("FAIL seq=%llu: %s/base: the log was cut at seq %llu beyond "
					      "its signed checkpoint (3)", (unsigned long long)firsts[0],
					      log_dir, (unsigned long long)firsts[0]);
	_cleanup_free_ char *swapped = fixture_verify_dir(dir, "k");
	if (strncmp(swapped, want, strlen(want)) != 0)
		fail_msg("got %s, expected %s", swapped, want);
	fixture_write(ckpt, ctext, clen);

	_cleanup_free_ char *btext = fixture_read(base, &blen);
	fixture_write(base, "not an anchor\n", 14);
	_cleanup_free_ char *damaged = fixture_verify_dir(dir, "k");
	assert_non_null(strstr(damaged, "/base: the retention anchor is damaged"));
	/* and the writer refuses to start on it, saying what to run */
	free(err);
	err = NULL;
	assert_true(audit_open(&o, &log, &err) < 0);
	if (!strstr(err, "/base: the retention anchor is damaged (") || !strstr(err, "); run 'mai-agent verify "))
		fail_msg("%s", err);
	fixture_write(base, btext, blen);

	_cleanup_free_ char *seg = audit_segment_path(log_dir, firsts[0], "log");
	assert_int_equal(unlink(seg), 0);
	_cleanup_free_ char *gap = xasprintf("FAIL seq=%llu: %s: records from seq %llu to %llu are missing",
					     (unsigned long long)firsts[0], log_dir,
					     (unsigned long long)firsts[0], (unsigned long long)firsts[1] - 1);
	_cleanup_free_ char *missing = fixture_verify_dir(dir, "k");
	if (strncmp(missing, gap, strlen(gap)) != 0)
		fail_msg("got %s, expected %s", missing, gap);
}

/* A rotation that cannot create the new segment (its disk out of inodes,
 * for real: a tmpfs of 64, one left for the segment and none for its
 * index) goes on writing the segment it has, leaving no empty segment
 * behind (it would claim the records written on in the old one); once
 * there is room again the next rotation happens, and the log verifies. */
static void test_rotation_on_a_full_disk(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *disk = testdir_small_fs(dir, "disk", "size=4m,nr_inodes=64,mode=0755");
	if (!disk)
		test_skip("a tmpfs of its own needs root (mount)");
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 1);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", disk);
	o.log_dir = log_dir;
	o.rotate_size = 2048;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 2);
	unsigned fillers = testdir_fill_inodes(disk);
	/* One inode left: the new segment's log file can be made, its index
	 * cannot. */
	_cleanup_free_ char *last = xasprintf("%s/fill-%u", disk, --fillers);
	assert_int_equal(unlink(last), 0);
	_cleanup_free_ uint64_t *before = NULL;
	size_t nbefore = 0;
	assert_int_equal(audit_segments_list(log_dir, &before, &nbefore), 0);
	fixture_append(log, 30); /* far past rotate_size: every batch tries to rotate */
	char *why = NULL;
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_OK);
	free(why);
	_cleanup_free_ uint64_t *during = NULL;
	size_t nduring = 0;
	assert_int_equal(audit_segments_list(log_dir, &during, &nduring), 0);
	assert_int_equal(nduring, nbefore);

	for (unsigned i = 0; i < fillers; i++) {
		_cleanup_free_ char *p = xasprintf("%s/fill-%u", disk, i);
		assert_int_equal(unlink(p), 0);
	}
	fixture_append(log, 2);
	audit_close(log);
	_cleanup_free_ uint64_t *after = NULL;
	size_t nafter = 0;
	assert_int_equal(audit_segments_list(log_dir, &after, &nafter), 0);
	assert_true(nafter > nbefore);
	_cleanup_free_ char *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ char *line = fixture_verify_line(log_dir, pub);
	if (strncmp(line, "OK n=", 5) != 0)
		fail_msg("%s", line);
	testdir_unmount(disk);
}

/* Retention's steps failing: the log directory unlistable (no descriptor
 * left, for real) and the anchor unwritable (fault.h: EIO; a full disk is
 * the rotation's test) refuse the cut and leave every segment; the tree file's
 * holes (fault.h: fallocate's EIO) and an expired segment's removal
 * (fault.h: EBUSY) failing only warn, and a segment left below the anchor
 * is no part of the log. The log verifies after each. */
static void test_retention_failures(void **state)
{
	const char *dir = *state;
	struct audit_options o;
	struct audit_log *log = open_retaining(dir, 4096, &o);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir);
	fixture_append(log, 100);
	assert_int_equal(audit_checkpoint_now(log), 0);
	_cleanup_free_ uint64_t *before = NULL;
	size_t nbefore = 0;
	assert_int_equal(audit_segments_list(log_dir, &before, &nbefore), 0);
	assert_true(nbefore >= 4);

	struct rlimit fds = testdir_fd_limit(0);
	int r = audit_retention_now(log, time(NULL) + 7200);
	testdir_fd_limit_end(&fds);
	assert_int_equal(r, -EMFILE);
	fault_arm("open64", "/audit/base.tmp.", 1, 1, EIO);
	assert_int_equal(audit_retention_now(log, time(NULL) + 7200), -EIO);
	assert_int_equal(fault_hits("open64"), 1);
	fault_clear();
	_cleanup_free_ uint64_t *kept = NULL;
	size_t nkept = 0;
	assert_int_equal(audit_segments_list(log_dir, &kept, &nkept), 0);
	assert_int_equal(nkept, nbefore);

	fault_arm("fallocate64", NULL, 1, 1, EIO);
	fault_arm("unlink", "/seg-000000000000.log", 1, 1, EBUSY);
	assert_int_equal(audit_retention_now(log, time(NULL) + 7200), 0);
	assert_int_equal(fault_hits("fallocate64"), 1);
	assert_int_equal(fault_hits("unlink"), 1);
	fault_clear();
	_cleanup_free_ uint64_t *after = NULL;
	size_t nafter = 0;
	assert_int_equal(audit_segments_list(log_dir, &after, &nafter), 0);
	assert_int_equal(nafter, 2); /* the one left below the anchor, the one written */
	assert_int_equal(after[0], 0);
	fixture_append(log, 5);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	if (strncmp(line, "OK n=", 5) != 0)
		fail_msg("%s", line);
}

/* The checkpoint file that cannot be written or renamed into place
 * (fault.h: EIO) fails the
 * checkpoint; the log goes on and the next checkpoint is made. */
static void test_checkpoint_unwritable(void **state)
{
	const char *dir = *state;
	struct audit_options o;
	struct audit_log *log = open_retaining(dir, 0, &o);
	fixture_append(log, 3);
	fault_arm("open64", "/checkpoint.tmp", 1, 1, EIO);
	assert_int_equal(audit_checkpoint_now(log), -EIO);
	fault_arm("rename", "/checkpoint", 1, 1, EIO);
	assert_int_equal(audit_checkpoint_now(log), -EIO);
	assert_int_equal(fault_hits("rename"), 1);
	fault_clear();
	fixture_append(log, 1);
	assert_int_equal(audit_checkpoint_now(log), 0);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	if (strncmp(line, "OK n=", 5) != 0)
		fail_msg("%s", line);
}

/* The running writer reads back, at each checkpoint, what it wrote since
 * the last one, across segments (every batch rotates here): retention
 * having dropped the segment the last reading ended in is no change; a
 * segment removed behind the writer, the one it read last or one after
 * it, stops it. */
static void test_reading_back_across_segments(void **state)
{
	const char *dir = *state;
	struct audit_options o;
	struct audit_log *log = open_retaining(dir, 1, &o);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir);
	char *why = NULL;

	fixture_append(log, 3);
	assert_int_equal(audit_checkpoint_now(log), 0); /* read up to the end of seg 2 */
	fixture_append(log, 1);                          /* seg 3: the checkpoint's record and it */
	assert_int_equal(audit_retention_now(log, time(NULL) + 7200), 0); /* segs 0 to 2 go */
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t n = 0;
	assert_int_equal(audit_segments_list(log_dir, &firsts, &n), 0);
	assert_int_equal(firsts[0], 3);
	assert_int_equal(audit_checkpoint_now(log), 0);
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_OK);
	free(why);

	fixture_append(log, 3);
	free(firsts);
	firsts = NULL;
	assert_int_equal(audit_segments_list(log_dir, &firsts, &n), 0);
	assert_true(n >= 4);
	_cleanup_free_ char *middle = audit_segment_path(log_dir, firsts[n - 2], "log");
	assert_int_equal(unlink(middle), 0);
	assert_int_equal(audit_checkpoint_now(log), -EBADMSG);
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_TAMPERED);
	if (!strstr(why, "(a segment was inserted or removed)"))
		fail_msg("%s", why);
	free(why);
	audit_close(log);
}

static void test_reading_back_a_removed_segment(void **state)
{
	const char *dir = *state;
	struct audit_options o;
	struct audit_log *log = open_retaining(dir, 0, &o);
	_cleanup_free_ char *seg = xasprintf("%s/audit/seg-000000000000.log", dir);
	char *why = NULL;

	fixture_append(log, 3);
	assert_int_equal(audit_checkpoint_now(log), 0);
	fixture_append(log, 2);
	assert_int_equal(unlink(seg), 0);
	assert_int_equal(audit_checkpoint_now(log), -EBADMSG);
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_TAMPERED);
	if (!strstr(why, "seg-000000000000.log is gone: records from seq 3 are missing"))
		fail_msg("%s", why);
	free(why);
	audit_close(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_last_segment, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_group_commit_from_threads, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rotation_under_concurrent_appends, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_reader_of_an_empty_log, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rotation_keeps_one_chain, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_small_retention_cut, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_retention_keeps_the_rest_verifiable, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_retention_cut_damaged, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rotation_on_a_full_disk, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_retention_failures, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_unwritable, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_reading_back_across_segments, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_reading_back_a_removed_segment, testdir_setup,
						testdir_teardown),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
