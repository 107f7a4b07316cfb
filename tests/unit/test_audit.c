/* The writer, the reader and the verifier together on real files: appends,
 * reopening, keys, checkpoints, statistics, a torn tail, a failed write,
 * queued records and event fields. Segments (rotation, retention) and
 * appends from many threads are in test_audit_segments.c. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/resource.h>

#include "audit.h"
#include "audit_event.h"
#include "audit_format.h"
#include "audit_fixture.h"
#include "audit_reader.h"
#include "audit_stats.h"
#include "audit_verify.h"
#include "fault.h"
#include "fileio.h"
#include "macro.h"
#include "testdir.h"

static void test_append_reopen_read_verify(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 1);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 10);
	struct audit_position pos;
	json_t *f = json_pack("{s:s, s:i}", "zeta", "last", "alpha", 1);
	assert_int_equal(audit_append(log, "decision", f, &pos), 0);
	json_decref(f);
	assert_int_equal(pos.seq, 10);
	audit_close(log);

	/* Closing records the checkpoint it signs (seq 11) and signs once more
	 * so that the checkpoint beside the log covers that record too. */
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK n=12 head=", 13) == 0);
	assert_non_null(strstr(line, " checkpoint=ok"));

	/* Reopening continues the chain. */
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 4);
	audit_close(log);
	_cleanup_free_ char *line2 = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line2, "OK n=17 head=", 13) == 0);

	/* Random access by number; the body is canonical JSON (sorted keys). */
	struct audit_reader *r = NULL;
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir);
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_count(r), 17);
	/* The head is the last record's entry hash, the one verify names. */
	char head[65];
	assert_int_equal(audit_reader_head_hex(r, head), 0);
	assert_int_equal(strlen(head), 64);
	assert_memory_equal(line2 + 13, head, 64);
	_cleanup_free_ char *json = NULL;
	size_t len;
	assert_int_equal(audit_reader_get_json(r, 10, &json, &len), 0);
	assert_true(strncmp(json, "{\"fields\":{\"alpha\":1,\"zeta\":\"last\"},\"seq\":10,\"time\":\"", 52) == 0);
	assert_non_null(strstr(json, "\"type\":\"decision\"}"));
	_cleanup_free_ char *rec = NULL;
	assert_int_equal(audit_reader_get(r, 10, &rec, &len), 0);
	assert_memory_equal(rec, pos.entry_hex, 64);
	free(json);
	assert_int_equal(audit_reader_get_json(r, 11, &json, &len), 0);
	assert_true(strncmp(json, "{\"fields\":{\"root\":\"", 19) == 0);
	assert_non_null(strstr(json, "\"size\":11},\"seq\":11,"));
	assert_non_null(strstr(json, "\"type\":\"checkpoint\"}"));
	assert_int_equal(audit_reader_get(r, 17, &rec, &len), -ENOENT);
	_cleanup_free_ char *ck = NULL;
	assert_int_equal(audit_reader_checkpoint(r, &ck), 0);
	assert_true(strncmp(ck, "mai.test/audit\n17\n", 18) == 0);
	assert_non_null(strstr(ck, "\n\n\xe2\x80\x94 mai.test/audit "));
	audit_reader_close(r);

	/* The key stays private; the public key is published next to the log. */
	struct stat st;
	_cleanup_free_ char *key = xasprintf("%s/k.key", dir), *pubkey = xasprintf("%s/audit/pubkey", dir);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(pubkey, &st), 0);
}

static void test_second_writer_refused(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *a = NULL, *b = NULL;
	_cleanup_free_ char *err = NULL, *want = xasprintf("(pid %ld, lock %s/audit/lock)", (long)getpid(), dir);
	assert_int_equal(audit_open(&o, &a, &err), 0);
	assert_int_equal(audit_open(&o, &b, &err), -EWOULDBLOCK);
	assert_non_null(strstr(err, "is in use by another writer"));
	assert_non_null(strstr(err, want));
	audit_close(a);
}

static void test_first_start_makes_a_key(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *log_dir = xasprintf("%s/state/audit", dir), *err = NULL;
	struct audit_options o = { .log_dir = log_dir, .origin = "mai.test/first", .fsync = 0 };
	struct audit_log *log = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 3);
	audit_close(log);
	struct stat st;
	_cleanup_free_ char *key = xasprintf("%s/state/audit-signing.key", dir);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	struct audit_verify_report rep;
	assert_int_equal(audit_verify_log(log_dir, NULL, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 4); /* and the checkpoint record */
	audit_verify_report_clear(&rep);

	/* The next start keeps that key, whatever failed before it (errno
	 * left at ENOENT by the caller's last miss). */
	_cleanup_free_ char *first = NULL, *second = NULL;
	size_t n1, n2;
	assert_int_equal(fileio_read_path(key, 1 << 16, &first, &n1), 0);
	errno = ENOENT;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 1);
	audit_close(log);
	assert_int_equal(fileio_read_path(key, 1 << 16, &second, &n2), 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(first, second, n1);
}

/* The writer's start refuses what it cannot set up, each message naming
 * the file and what to do: a log directory under a file, a signing key it
 * cannot create, one that is not a key, a public key it cannot publish. */
static void test_start_refusals(void **state)
{
	const char *dir = *state;
	struct audit_log *log = NULL;
	char *err = NULL;
	fixture_keys(dir, "k", "mai.test/audit");
	testdir_put(dir, "file", "x");
	testdir_put(dir, "garbage.key", "PRIVATE+KEY+nothing\n");
	_cleanup_free_ char *under_file = xasprintf("%s/file/audit", dir), *log_dir = xasprintf("%s/log", dir);
	/* the key's directory a link to nowhere: no key there, and none can be made */
	_cleanup_free_ char *dangling = xasprintf("%s/keys", dir), *no_key = xasprintf("%s/keys/a.key", dir);
	assert_int_equal(symlink("nowhere", dangling), 0);
	_cleanup_free_ char *garbage = xasprintf("%s/garbage.key", dir), *key = xasprintf("%s/k.key", dir);
	_cleanup_free_ char *no_pub = xasprintf("%s/file/pub", dir);
	const struct {
		struct audit_options o;
		const char *says;
	} cases[] = {
		{ { .log_dir = under_file, .signing_key = key, .origin = "mai.test/audit" },
		  "/file/audit: cannot create the audit log directory: Not a directory" },
		{ { .log_dir = log_dir, .signing_key = no_key, .origin = "mai.test/audit" },
		  "/keys/a.key: cannot create the audit signing key: No such file or directory (set signing_key "
		  "in audit.yaml, or run 'mai-agent keygen')" },
		{ { .log_dir = log_dir, .signing_key = garbage, .origin = "mai.test/audit" },
		  "/garbage.key: not a signing key: " },
		{ { .log_dir = log_dir, .signing_key = key, .public_key = no_pub, .origin = "mai.test/audit" },
		  "/file/pub: cannot publish the public key: Not a directory" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_true(audit_open(&cases[i].o, &log, &err) < 0);
		if (!strstr(err, cases[i].says))
			fail_msg("case %zu: %s", i, err);
		free(err);
		err = NULL;
	}
}

/* Records without a signed checkpoint cannot be vouched for: the verifier
 * fails them; an empty log has nothing to vouch for and passes. */
static void test_records_without_checkpoint_fail(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ char *ckpt = xasprintf("%s/checkpoint", o.log_dir), *empty = xasprintf("%s/empty", dir);
	struct audit_verify_report rep;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 3);
	audit_close(log);
	assert_int_equal(unlink(ckpt), 0);
	assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
	assert_false(rep.ok);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_MISSING);
	assert_non_null(strstr(rep.reason, "no signed checkpoint"));
	audit_verify_report_clear(&rep);

	assert_int_equal(mkdir(empty, 0700), 0);
	assert_int_equal(audit_verify_log(empty, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 0);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_MISSING);
	audit_verify_report_clear(&rep);
}

/* With checkpoint_interval_s set, records are covered by a checkpoint of
 * their own within that time, with no call to checkpoint. */
static void test_timed_checkpoint(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.checkpoint_interval_s = 1;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *pub = xasprintf("%s/k.pub", dir);
	struct audit_verify_report rep;
	int covered = 0;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 3);
	for (int i = 0; i < 100 && !covered; i++) {
		usleep(100 * 1000);
		/* (read while the timer may be writing: only a whole view counts) */
		covered = audit_verify_log(o.log_dir, pub, &rep) == 0 && rep.ok &&
			  rep.checkpoint == AUDIT_CKPT_OK && rep.entries == 4;
		audit_verify_report_clear(&rep);
	}
	assert_true(covered);
	audit_close(log);
}

/* The configured key lives in a directory of its own that a fresh machine
 * does not have yet (the shipped default, /var/lib/mai/keys): the first
 * start makes the directory, private, and the key in it. */
static void test_first_start_makes_the_key_directory(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *log_dir = xasprintf("%s/state/audit", dir), *err = NULL;
	_cleanup_free_ char *key_dir = xasprintf("%s/keys/mai", dir);
	_cleanup_free_ char *key = xasprintf("%s/audit.key", key_dir);
	struct audit_options o = { .log_dir = log_dir, .signing_key = key, .origin = "mai.test/keys" };
	struct audit_log *log = NULL;
	struct stat st;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	assert_null(err);
	fixture_append(log, 1);
	audit_close(log);
	assert_int_equal(stat(key_dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

/* What a scrape reads of a log without verifying it: as many records as
 * the verifier counts (the last one's seq + 1, found from the tail even
 * when that record is longer than the first read), the segments' bytes,
 * and the checkpoint. A segment of one line counts one record. */
static void test_stats_of_a_log(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.checkpoint_interval_s = 3600;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ char *seg = xasprintf("%s/seg-000000000000.log", o.log_dir);
	_cleanup_free_ char *big = xmalloc(9000);
	struct audit_verify_report rep;
	struct audit_stats st;
	struct stat sb;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 12); /* a last seq of two digits */
	assert_int_equal(audit_checkpoint_now(log), 0);
	memset(big, 'x', 8999);
	big[8999] = '\0';
	json_t *f = json_pack("{s:s}", "file", big);
	assert_int_equal(audit_append(log, "job_accepted", f, NULL), 0);
	json_decref(f);
	audit_close(log);

	assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(audit_stats_read(o.log_dir, &st), 0);
	assert_int_equal(st.records, rep.entries);
	audit_verify_report_clear(&rep);
	assert_int_equal(stat(seg, &sb), 0);
	assert_int_equal(st.bytes, (uint64_t)sb.st_size);
	assert_int_equal(st.checkpoint_size, st.records); /* the close signs the whole log */
	assert_true(st.checkpoint_time > 0);

	/* A log of one record, its one line at the start of the file. */
	_cleanup_free_ char *text = NULL, *one = xasprintf("%s/one", dir);
	_cleanup_free_ char *one_seg = xasprintf("%s/seg-000000000000.log", one);
	size_t len;
	assert_int_equal(fileio_read_path(seg, 1 << 20, &text, &len), 0);
	size_t first = (size_t)(strchr(text, '\n') - text) + 1;
	assert_int_equal(mkdir(one, 0700), 0);
	assert_int_equal(fileio_write_atomic(one_seg, text, first, 0600), 0);
	assert_int_equal(audit_stats_read(one, &st), 0);
	assert_int_equal(st.records, 1);
	assert_int_equal(st.bytes, first);
	assert_int_equal(st.checkpoint_size, 0);
}

static void test_torn_tail_quarantined_and_recorded(void **state)
{
	const char *dir = *state;
	fixture_closed_log(dir, 1, 5);
	/* A crash in the middle of a write leaves half a record. */
	_cleanup_free_ char *seg = xasprintf("%s/audit/seg-000000000000.log", dir);
	FILE *f = fopen(seg, "a");
	fputs("0123456789abcdef half a record", f);
	fclose(f);
	_cleanup_free_ char *before = fixture_verify_dir(dir, "k");
	assert_true(strncmp(before, "OK n=6 ", 7) == 0); /* the partial line is not part of the log */

	struct audit_options o = fixture_options(dir, "k", 1);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	audit_close(log);
	_cleanup_free_ char *after = fixture_verify_dir(dir, "k");
	assert_true(strncmp(after, "OK n=8 ", 7) == 0);

	struct audit_reader *r = NULL;
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *json = NULL;
	size_t len;
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_get_json(r, 6, &json, &len), 0);
	audit_reader_close(r);
	json_t *j = json_loads(json, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "type")), "audit_torn_tail");
	json_t *fields = json_object_get(j, "fields");
	assert_int_equal(json_integer_value(json_object_get(fields, "bytes")), 30);
	const char *q = json_string_value(json_object_get(fields, "quarantine"));
	size_t qlen;
	_cleanup_free_ char *kept = fixture_read(q, &qlen);
	assert_string_equal(kept, "0123456789abcdef half a record");
	json_decref(j);
}

/* A write that fails part way (a full disk) leaves nothing torn, and the next
 * append, once there is room again, succeeds without reopening the log.
 * RLIMIT_FSIZE stands in for the full disk: the kernel really cuts the write
 * short at the limit and fails the rest with EFBIG, which is what a full
 * disk does but cannot be arranged in an unprivileged unit test (the real
 * full tmpfs is in tests/integration/agent_failures.sh). */
static void test_failed_write_recovers(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 1);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *seg = xasprintf("%s/audit/seg-000000000000.log", dir);
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 10);
	struct stat st;
	assert_int_equal(stat(seg, &st), 0);
	off_t good = st.st_size;

	char big[600];
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	json_t *f = json_pack("{s:s}", "pad", big);
	struct rlimit saved, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	lim = saved;
	lim.rlim_cur = (rlim_t)good + 100; /* room for part of the record only */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	struct audit_position pos;
	assert_int_equal(audit_append(log, "execution", f, &pos), -EFBIG);
	assert_int_equal(stat(seg, &st), 0);
	assert_int_equal(st.st_size, good); /* the partial record was cut back */
	assert_int_equal(audit_append(log, "execution", f, &pos), -EFBIG); /* still full: still refused */
	assert_int_equal(audit_size(log), 10);

	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0); /* room again */
	signal(SIGXFSZ, old_handler);
	assert_int_equal(audit_append(log, "execution", f, &pos), 0);
	assert_int_equal(pos.seq, 10); /* the failed records took no number */
	json_decref(f);
	fixture_append(log, 2);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK n=14 ", 8) == 0); /* 10, the new one, 2, the checkpoint record */
	struct audit_reader *r = NULL;
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *json = NULL;
	size_t len;
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_get_json(r, 10, &json, &len), 0);
	assert_non_null(strstr(json, "\"type\":\"execution\""));
	audit_reader_close(r);
}

/* The disk failing under the writer (fault.h: EIO from fdatasync, and from
 * ftruncate when a failed batch is cut back, which no real disk gives on
 * demand; the full disk is test_failed_write_recovers): a failed sync
 * drops the batch, the health says the log cannot be written, and the next
 * append writes again, also when the cut's own sync failed; a cut that
 * fails breaks the log until a restart, and the health says that. The log
 * reopened after it verifies. */
static void test_disk_failures_while_writing(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 1);
	struct audit_log *log = NULL;
	struct audit_position pos;
	_cleanup_free_ char *err = NULL;
	char *why = NULL;
	json_t *f = json_pack("{s:s}", "file", "x.py");

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 3);
	fault_arm("fdatasync", "/seg-", 1, 1, EIO);
	assert_int_equal(audit_append(log, "job_accepted", f, &pos), -EIO);
	assert_int_equal(fault_hits("fdatasync"), 1);
	fault_clear();
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_UNWRITABLE);
	assert_non_null(strstr(why, "cannot be written: Input/output error"));
	free(why);
	assert_int_equal(audit_append(log, "job_accepted", f, &pos), 0);
	assert_int_equal(pos.seq, 3);
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_OK);
	free(why);

	fault_arm("fdatasync", "/seg-", 1, 2, EIO); /* the batch's sync, then the cut's */
	assert_int_equal(audit_append(log, "job_accepted", f, &pos), -EIO);
	assert_int_equal(fault_hits("fdatasync"), 2);
	fault_clear();
	assert_int_equal(audit_append(log, "job_accepted", f, &pos), 0);
	assert_int_equal(pos.seq, 4);

	fault_arm("fdatasync", "/seg-", 1, 1, EIO);
	fault_arm("ftruncate64", "/seg-", 1, 1, EIO);
	assert_int_equal(audit_append(log, "job_accepted", f, &pos), -EIO);
	assert_int_equal(fault_hits("ftruncate64"), 1);
	fault_clear();
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_BROKEN);
	assert_non_null(strstr(why, "failed (Input/output error) and could not be undone; restart"));
	free(why);
	assert_int_equal(audit_append(log, "job_accepted", f, &pos), -EIO); /* until the restart */
	audit_close(log);
	json_decref(f);

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 1);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	if (strncmp(line, "OK n=", 5) != 0)
		fail_msg("after the restart: %s", line);
}

/* What the start cannot do on its log directory: a lock that is a
 * directory (for real); the segment that cannot be opened (fault.h: EIO,
 * a failing disk); the pid in the lock and the log directory's fsync
 * failing (fault.h: EIO) only warn. */
static void test_start_disk_failures(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 1);
	struct audit_log *log = NULL;
	char *err = NULL;
	_cleanup_free_ char *lock = xasprintf("%s/audit/lock", dir);

	assert_int_equal(fileio_mkdir_p(lock, 0700), 0);
	assert_int_equal(audit_open(&o, &log, &err), -EISDIR);
	assert_non_null(strstr(err, "/audit/lock: cannot open the audit lock: Is a directory"));
	free(err);
	assert_int_equal(rmdir(lock), 0);

	fault_arm("open64", "/seg-000000000000.log", 1, 1, EIO);
	assert_int_equal(audit_open(&o, &log, &err), -EIO);
	fault_clear();
	assert_non_null(strstr(err, "seg-000000000000.log: cannot open audit segment: Input/output error"));
	free(err);

	fault_arm("ftruncate64", "/audit/lock", 1, 1, EIO);
	/* The directory's first fsync is the published key's, the second the
	 * new segment's. */
	fault_arm("fsync", "/audit$", 2, 1, EIO);
	assert_int_equal(audit_open(&o, &log, &err), 0);
	assert_int_equal(fault_hits("ftruncate64"), 1);
	assert_int_equal(fault_hits("fsync"), 1);
	fault_clear();
	fixture_append(log, 2);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK n=3 ", 7) == 0);
}

/* The start's recovery when what it must write or read fails, for real:
 * the index that cannot be rebuilt (a directory at its name), a segment
 * or the tree file that cannot be opened (a directory too), a tree file
 * with a wrong node (written again, also when it cannot be cut first),
 * the tree file and the torn tail's copy that cannot be written
 * (RLIMIT_FSIZE cuts them short, as a full disk does); cutting the tail
 * off after its copy is kept failing is fault.h's (ftruncate's EIO). Each start is refused with the path and
 * the errno, and the log, once the obstacle is gone, opens again. A
 * reader refuses a segment it cannot read the same way. */
static void test_recovery_failures(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	char *err = NULL;
	_cleanup_free_ char *seg = xasprintf("%s/audit/seg-000000000000.log", dir);
	_cleanup_free_ char *idx = xasprintf("%s/audit/seg-000000000000.idx", dir);
	_cleanup_free_ char *tree = xasprintf("%s/audit/tree", dir);

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 10);
	audit_close(log);

	assert_int_equal(unlink(idx), 0);
	assert_int_equal(mkdir(idx, 0700), 0);
	assert_int_equal(audit_open(&o, &log, &err), -EISDIR);
	assert_non_null(strstr(err, "seg-000000000000.idx: cannot rebuild the index: Is a directory"));
	free(err);
	assert_int_equal(rmdir(idx), 0);

	_cleanup_free_ char *aside = xasprintf("%s/seg.aside", dir);
	assert_int_equal(rename(seg, aside), 0);
	assert_int_equal(mkdir(seg, 0700), 0);
	assert_int_equal(audit_open(&o, &log, &err), -EISDIR);
	assert_non_null(strstr(err, "seg-000000000000.log: cannot recover: Is a directory"));
	free(err);
	assert_int_equal(rmdir(seg), 0);
	assert_int_equal(rename(aside, seg), 0);

	assert_int_equal(unlink(tree), 0);
	assert_int_equal(mkdir(tree, 0700), 0);
	assert_int_equal(audit_open(&o, &log, &err), -EISDIR);
	assert_non_null(strstr(err, "/audit/tree: cannot open the Merkle tree file: Is a directory"));
	free(err);
	assert_int_equal(rmdir(tree), 0);
	/* A tree file whose nodes are not the log's: cut at the first wrong one
	 * and written again (cutting it failing too: fault.h, EIO). */
	assert_int_equal(audit_open(&o, &log, &err), 0);
	audit_close(log);
	size_t tlen;
	_cleanup_free_ char *nodes = fixture_read(tree, &tlen);
	nodes[40] ^= 1;
	fixture_write(tree, nodes, tlen);
	fault_arm("ftruncate64", "/audit/tree", 1, 1, EIO);
	assert_int_equal(audit_open(&o, &log, &err), 0);
	assert_int_equal(fault_hits("ftruncate64"), 1);
	fault_clear();
	audit_close(log);
	_cleanup_free_ char *again = fixture_read(tree, &tlen);
	assert_int_not_equal(again[40], nodes[40]);

	/* A disk that takes no more than 200 bytes of a file: the tree of 10
	 * records (19 nodes of 32 bytes) does not fit. */
	struct rlimit saved, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	lim = saved;
	lim.rlim_cur = 200;
	assert_int_equal(unlink(tree), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int r = audit_open(&o, &log, &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	assert_int_equal(r, -EFBIG);
	assert_non_null(strstr(err, "/audit/tree: cannot write the Merkle tree file: File too large"));
	free(err);

	/* A torn tail of 1000 bytes, which its copy cannot hold. */
	char torn[1000];
	memset(torn, 'x', sizeof(torn));
	int fd = open(seg, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, torn, sizeof(torn)), sizeof(torn));
	close(fd);
	lim.rlim_cur = 700;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	r = audit_open(&o, &log, &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(r, -EFBIG);
	assert_non_null(strstr(err, ": cannot keep the torn tail aside in "));
	free(err);

	fault_arm("ftruncate64", "/seg-000000000000.log", 1, 1, EIO);
	r = audit_open(&o, &log, &err);
	fault_clear();
	assert_int_equal(r, -EIO);
	assert_non_null(strstr(err, "seg-000000000000.log: cannot cut the torn tail: Input/output error"));
	free(err);

	assert_int_equal(audit_open(&o, &log, &err), 0); /* the tail kept aside and cut */
	audit_close(log);

	/* A reader (the view's) of a log with a segment that cannot be read. */
	_cleanup_free_ char *odd = xasprintf("%s/audit/seg-000000000099.log", dir);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir);
	struct audit_reader *rd = NULL;
	assert_int_equal(mkdir(odd, 0700), 0);
	assert_int_equal(audit_reader_open(log_dir, &rd, &err), -EISDIR);
	assert_non_null(strstr(err, "seg-000000000099.log: cannot read: Is a directory"));
	free(err);
	assert_int_equal(rmdir(odd), 0);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	if (strncmp(line, "OK n=", 5) != 0)
		fail_msg("%s", line);
}

/* A queued record is not on disk until a durable append or audit_sync()
 * writes it; a failed write drops it with its epoch, and audit_sync() says
 * so instead of vouching for the seq that the next record takes over. */
static void test_queued_records(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 1);
	o.checkpoint_interval_s = 3600;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *seg = xasprintf("%s/audit/seg-000000000000.log", dir);
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 3);
	struct stat st;
	assert_int_equal(stat(seg, &st), 0);
	off_t good = st.st_size;

	/* Queued: in place (a seq), not on disk; a sync writes it. */
	json_t *f = json_pack("{s:s}", "k", "v");
	struct audit_position a, b;
	assert_int_equal(audit_append_queued(log, "note", f, &a), 0);
	assert_int_equal(a.seq, 3);
	assert_int_equal(stat(seg, &st), 0);
	assert_int_equal(st.st_size, good);
	assert_int_equal(audit_append_queued(log, "note", f, &b), 0);
	assert_int_equal(b.seq, 4);
	assert_int_equal(b.epoch, a.epoch);
	assert_int_equal(audit_sync(log, b.seq, b.epoch), 0);
	assert_int_equal(stat(seg, &st), 0);
	assert_true(st.st_size > good);
	good = st.st_size;
	assert_int_equal(audit_size(log), 5);

	/* Dropped by a failed write: its epoch ended before it was durable. */
	struct rlimit saved, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	lim = saved;
	lim.rlim_cur = (rlim_t)good + 10;
	assert_int_equal(audit_append_queued(log, "note", f, &a), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(audit_flush(log), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(audit_append(log, "note", f, &b), 0);
	assert_int_equal(b.seq, a.seq); /* the dropped record's number, taken over */
	assert_true(b.epoch != a.epoch);
	assert_int_equal(audit_sync(log, a.seq, a.epoch), -EFBIG);
	assert_int_equal(audit_sync(log, b.seq, b.epoch), 0);
	json_decref(f);
	audit_close(log);
	_cleanup_free_ char *line = fixture_verify_dir(dir, "k");
	assert_true(strncmp(line, "OK ", 3) == 0);
}

static void test_event_fields_checked(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	json_t *f = json_pack("{s:I, s:s, s:s, s:s, s:b, s:s}", "job", (json_int_t)1, "file", "a.py", "sha256",
			      "00", "explanation", "", "accepted", 1, "consumed", "removed");
	assert_int_equal(audit_event_append(log, AUDIT_EVENT_OVERRIDE, f, NULL, &err), -EINVAL);
	assert_string_equal(err, "audit event override needs the field \"uid\"");
	free(err);
	err = NULL;
	json_object_set_new(f, "uid", json_integer(1000));
	assert_int_equal(audit_event_append(log, AUDIT_EVENT_OVERRIDE, f, NULL, &err), -EINVAL);
	assert_string_equal(err, "audit event override needs a non-empty explanation when it is accepted");
	free(err);
	err = NULL;
	json_object_set_new(f, "explanation", json_string("reviewed: needs network-free numpy"));
	struct audit_position pos;
	assert_int_equal(audit_event_append(log, AUDIT_EVENT_OVERRIDE, f, &pos, &err), 0);
	assert_int_equal(pos.seq, 0);
	json_decref(f);
	json_t *cfg = json_pack("{s:s}", "config_sha256", "ab");
	assert_int_equal(audit_event_append(log, AUDIT_EVENT_CONFIG_LOADED, cfg, &pos, &err), 0);
	json_decref(cfg);
	assert_string_equal(audit_event_to_string(AUDIT_EVENT_SCRIPT_DIFF), "script_diff");
	audit_close(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_append_reopen_read_verify, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_second_writer_refused, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_first_start_makes_a_key, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_start_refusals, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_timed_checkpoint, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_records_without_checkpoint_fail, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_stats_of_a_log, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_first_start_makes_the_key_directory, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_torn_tail_quarantined_and_recorded, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_recovers, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_event_fields_checked, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_queued_records, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_disk_failures_while_writing, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_start_disk_failures, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_recovery_failures, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
