/* The writer's bounds and what it notices: one record size limit for the
 * writer, the reader and the verifier; a record changed, rewritten with a
 * matching chain or cut behind a running writer is seen at its next
 * checkpoint and stops it; a start on such a log names the change and how
 * to recover, and the recovery works; the Merkle tree file on disk is
 * re-derived from the records when it is lost or damaged. */
#include <errno.h>
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
#include "audit_event.h"
#include "audit_format.h"
#include "audit_fixture.h"
#include "audit_reader.h"
#include "audit_verify.h"
#include "hash.h"
#include "macro.h"
#include "merkle.h"
#include "testdir.h"

static struct audit_log *open_log(const char *dir)
{
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	if (audit_open(&o, &log, &err) < 0)
		fail_msg("audit_open: %s", err);
	return log;
}

static struct audit_log *new_log(const char *dir)
{
	fixture_keys(dir, "k", "mai.test/audit");
	return open_log(dir);
}

/* The segment's lines; *n of them. Caller frees the array and the text. */
static char **lines_of(const char *dir, char **text, size_t *n)
{
	_cleanup_free_ char *seg = xasprintf("%s/audit/seg-000000000000.log", dir);
	size_t len, count = 0;
	*text = fixture_read(seg, &len);
	char **v = xcalloc(len / (AUDIT_JSON_OFFSET + 2) + 2, sizeof(char *));
	for (char *p = *text, *nl; (nl = memchr(p, '\n', (size_t)(*text + len - p))); p = nl + 1) {
		*nl = '\0';
		v[count++] = p;
	}
	*n = count;
	return v;
}

static void write_lines(const char *dir, char **v, size_t n)
{
	_cleanup_free_ char *seg = xasprintf("%s/audit/seg-000000000000.log", dir);
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	char *out = xmalloc(len + 1), *p = out;
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s\n", v[i]);
	fixture_write(seg, out, len);
	free(out);
}

/* One byte of record k changed (a digit of its "n" field). */
static void change_record(const char *dir, size_t k)
{
	char *text;
	size_t n;
	char **v = lines_of(dir, &text, &n);
	char *p = strstr(v[k], "\"n\":");
	assert_non_null(p);
	p[4] = p[4] == '9' ? '8' : '9';
	write_lines(dir, v, n);
	free(v);
	free(text);
}

/* The last count records gone, whole lines. */
static void cut_records(const char *dir, size_t count)
{
	char *text;
	size_t n;
	char **v = lines_of(dir, &text, &n);
	write_lines(dir, v, n - count);
	free(v);
	free(text);
}

/* The entry hash a line starts with. */
static void unhex_entry(const char *line, uint8_t out[AUDIT_HASH_LEN])
{
	_cleanup_free_ char *hex = xstrndup(line, 64);
	assert_int_equal(hash_from_hex(hex, out, AUDIT_HASH_LEN), 0);
}

/* A record that does not fit is refused whole and takes no number; the
 * reader and the verifier refuse a longer line the same way. */
/* The length of record seq of dir/audit as the reader gives it back. */
static size_t record_length(const char *dir, uint64_t seq)
{
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *err = NULL;
	struct audit_reader *r = NULL;
	char *rec = NULL;
	size_t len;
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_get(r, seq, &rec, &len), 0);
	free(rec);
	audit_reader_close(r);
	return len;
}

static void test_one_record_limit_for_writer_reader_and_verifier(void **state)
{
	const char *dir = *state;
	struct audit_log *log = new_log(dir);
	fixture_append(log, 3);
	char *big = xmalloc(AUDIT_RECORD_MAX);
	memset(big, 'x', AUDIT_RECORD_MAX - 1);
	big[AUDIT_RECORD_MAX - 1] = '\0';
	json_t *f = json_pack("{s:s}", "stdout", big);
	assert_int_equal(audit_append(log, "execution", f, NULL), -EMSGSIZE);
	assert_int_equal(audit_size(log), 3);
	struct audit_position pos;
	fixture_append(log, 1);
	json_decref(f);
	/* Just under the limit is taken, and read back whole. */
	big[AUDIT_RECORD_MAX - 1024] = '\0';
	f = json_pack("{s:s}", "stdout", big);
	assert_int_equal(audit_append(log, "execution", f, &pos), 0);
	assert_int_equal(pos.seq, 4);
	json_decref(f);
	audit_close(log);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *pub = xasprintf("%s/k.pub", dir), *err = NULL;
	struct audit_reader *r = NULL;
	char *rec = NULL;
	size_t len = record_length(dir, 4);
	assert_true(len > AUDIT_RECORD_MAX - 1024 && len < AUDIT_RECORD_MAX);
	_cleanup_free_ char *ok = fixture_verify_line(log_dir, pub);
	assert_true(strncmp(ok, "OK n=6 ", 7) == 0);

	/* A longer line, however well formed and chained, is damage to both:
	 * the view never answers EIO where verify says OK. */
	char *text;
	size_t n;
	char **v = lines_of(dir, &text, &n);
	memset(big, 'y', AUDIT_RECORD_MAX - 1);
	big[AUDIT_RECORD_MAX - 1] = '\0';
	uint8_t prev[AUDIT_HASH_LEN], h[AUDIT_HASH_LEN];
	unhex_entry(v[3], prev);
	json_t *ff = json_pack("{s:s}", "stdout", big);
	_cleanup_free_ char *body = audit_format_body(4, "execution", ff, "2025-01-01T00:00:00.000000Z");
	json_decref(ff);
	char *line = NULL;
	audit_format_line(prev, 4, 0, body, &line, &len, h);
	line[len - 1] = '\0';
	v[4] = line;
	write_lines(dir, v, 5);
	free(line);
	free(v);
	free(text);
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_count(r), 5);
	assert_int_equal(audit_reader_get(r, 4, &rec, &len), -EIO);
	audit_reader_close(r);
	_cleanup_free_ char *bad = fixture_verify_line(log_dir, pub);
	assert_true(strncmp(bad, "FAIL seq=4: record longer than the limit", 40) == 0);
	/* The writer's start reads it back the same way, and goes no further. */
	struct audit_options o = fixture_options(dir, "k", 0);
	assert_int_equal(audit_open(&o, &log, &err), -EBADMSG);
	if (!strstr(err, "record longer than the limit of the format") || !strstr(err, "seq 4") ||
	    !strstr(err, "quarantine"))
		fail_msg("the restart message: %s", err);
	free(big);
}

/* The record of one part, fields taken from the log. */
static json_t *record_fields(const char *dir, uint64_t seq, size_t *line_len)
{
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *err = NULL, *json = NULL;
	struct audit_reader *r = NULL;
	size_t len;
	assert_int_equal(audit_reader_open(log_dir, &r, &err), 0);
	assert_int_equal(audit_reader_get_json(r, seq, &json, &len), 0);
	audit_reader_close(r);
	*line_len = len + AUDIT_JSON_OFFSET + 1;
	json_t *rec = json_loads(json, 0, NULL);
	json_t *f = json_incref(json_object_get(rec, "fields"));
	json_decref(rec);
	return f;
}

/* A line of exactly AUDIT_RECORD_MAX bytes with its newline is within the
 * limit for the writer, the reader and the verifier alike. */
static void test_record_at_the_limit(void **state)
{
	const char *dir = *state;
	struct audit_log *log = new_log(dir);
	fixture_append(log, 1);
	/* What a line adds to its text: measured on an empty one (every field
	 * around the text has a fixed width). */
	json_t *f = json_pack("{s:s}", "stdout", "");
	_cleanup_free_ char *body = audit_format_body(1, "execution", f, "2025-01-01T00:00:00.000000Z");
	json_decref(f);
	uint8_t zero[AUDIT_HASH_LEN] = { 0 }, h[AUDIT_HASH_LEN];
	char *line = NULL;
	size_t len;
	audit_format_line(zero, 1, 0, body, &line, &len, h);
	free(line);
	size_t n = AUDIT_RECORD_MAX - len;
	char *big = xmalloc(n + 1);
	memset(big, 'x', n);
	big[n] = '\0';
	f = json_pack("{s:s}", "stdout", big);
	free(big);
	struct audit_position pos;
	assert_int_equal(audit_append(log, "execution", f, &pos), 0);
	assert_int_equal(pos.seq, 1);
	json_decref(f);
	audit_close(log);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *pub = xasprintf("%s/k.pub", dir);
	assert_int_equal(record_length(dir, 1), AUDIT_RECORD_MAX - 1);
	_cleanup_free_ char *ok = fixture_verify_line(log_dir, pub);
	if (strncmp(ok, "OK n=3 ", 7) != 0)
		fail_msg("%s", ok);
}

/* Sequence numbers are twelve digits, read eight and four at a time:
 * a line written at any of them (every digit position used, up to the
 * largest) checks back at that number and at no other. */
static void test_sequence_numbers_of_every_width(void **state)
{
	static const uint64_t seqs[] = { 0, 9, 10, 99999, 123456789012, 987654321098, 999999999999 };
	uint8_t prev[AUDIT_HASH_LEN] = { 0 }, h[AUDIT_HASH_LEN], back[AUDIT_HASH_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(seqs); i++) {
		json_t *f = json_pack("{s:s}", "file", "x.py");
		_cleanup_free_ char *body = audit_format_body(seqs[i], "job_accepted", f,
							      "2025-01-01T00:00:00.000000Z");
		json_decref(f);
		_cleanup_free_ char *line = NULL;
		size_t len;
		const char *why = NULL;
		uint64_t ckpt = 0;
		audit_format_line(prev, seqs[i], seqs[i] / 2, body, &line, &len, h);
		if (audit_format_check(line, len - 1, prev, seqs[i], back, &ckpt, &why) != 0)
			fail_msg("seq %llu: %s", (unsigned long long)seqs[i], why);
		assert_memory_equal(back, h, AUDIT_HASH_LEN);
		assert_int_equal(ckpt, seqs[i] / 2);
		assert_int_equal(audit_format_check(line, len - 1, prev, seqs[i] + 1, back, &ckpt, &why),
				 -EBADMSG);
		memcpy(prev, h, AUDIT_HASH_LEN);
	}
}

/* The size the record cut measures is the size the log writes: every
 * kind of value, escapes, control characters, 2-, 3- and 4-byte UTF-8 (the
 * last as a surrogate pair), a NUL inside a string, keys that need
 * escaping, numbers, nesting and empty containers. */
static void test_canonical_size_is_the_encoded_size(void **state)
{
	(void)state;
	static const char nul[] = "a\0b";
	json_t *values[] = {
		json_string(""),
		json_string("plain ASCII text, with a / and a ~"),
		json_string("\" \\ \b \f \n \r \t \x01 \x1f \x7f"),
		json_string("\u00e9t\u00e9 \u20ac \U0001F600 \u00a0"),
		json_stringn(nul, 3),
		json_integer(0),
		json_integer(-1234567890123LL),
		json_real(0.1),
		json_real(-2.5e300),
		json_true(),
		json_false(),
		json_null(),
		json_object(),
		json_array(),
		json_pack("{s:s, s:i, s:[s, i, {}], s:{s:b, s:n}}", "k\u00e9y \"q\"", "v\n",
			  "n", 7, "list", "\U0001F600", 3, "obj", "t", 1, "z"),
		json_pack("[[], [[]], {s:[]}, s]", "\x02", "\u0800\uffff"),
	};
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		assert_non_null(values[i]);
		_cleanup_free_ char *s = audit_canonical_json(values[i]);
		assert_non_null(s);
		if (audit_canonical_size(values[i]) != strlen(s))
			fail_msg("value %zu: %zu counted, %zu written: %s", i,
				 audit_canonical_size(values[i]), strlen(s), s);
		json_decref(values[i]);
	}
}

/* Fields that would make a record too long go in cut down: the largest
 * parts (an output that escapes to six times its size, a list of findings)
 * lose their tail, and the record says what was cut and how much. */
static void test_oversized_parts_cut_and_said_so(void **state)
{
	const char *dir = *state;
	struct audit_log *log = new_log(dir);
	/* 256 Ki of é (1.5 MiB escaped) after 3 MiB of ASCII */
	const size_t out_len = ((size_t)3 << 20) + ((size_t)1 << 19);
	char *out = xmalloc(out_len + 1);
	memset(out, 'o', (size_t)3 << 20);
	for (size_t i = (size_t)3 << 20; i < out_len; i += 2)
		memcpy(out + i, "\xc3\xa9", 2);
	out[out_len] = '\0';
	char *err_text = xmalloc((1 << 20) + 1);
	memset(err_text, 'e', 1 << 20);
	err_text[1 << 20] = '\0';
	json_t *f = json_pack("{s:s, s:s, s:I, s:s, s:{s:{s:s, s:b}, s:{s:s, s:b}, s:i}}", "file", "big.py", "sha256",
			      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "job", (json_int_t)0,
			      "verdict", "exited", "execution", "stdout", "text", out, "truncated", 0, "stderr",
			      "text", err_text, "truncated", 0, "wall_ms", 12);
	struct audit_position pos;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_event_append(log, AUDIT_EVENT_EXECUTION, f, &pos, &err), 0);
	json_decref(f);
	json_t *findings = json_array();
	for (int i = 0; i < 25000; i++)
		json_array_append_new(findings, json_pack("{s:s, s:i, s:i, s:s}", "rule_id", "MAI030", "line", i + 1,
							  "col", 1, "message", "opens a file for writing: the sandbox's "
							  "/tmp is the only place it can write, and it is gone after "
							  "the run; write results to stdout instead, which the result "
							  "keeps (capped by sandbox.stdout_max)"));
	f = json_pack("{s:s, s:s, s:I, s:i, s:b, s:{s:s, s:o}}", "file", "big.py", "sha256",
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "job", (json_int_t)0,
		      "level", 1, "rejected", 0, "assessment", "level", "MEDIUM", "findings", findings);
	struct audit_position pos2;
	assert_int_equal(audit_event_append(log, AUDIT_EVENT_ASSESSMENT, f, &pos2, &err), 0);
	json_decref(f);
	audit_close(log);

	size_t len;
	json_t *rec = record_fields(dir, pos.seq, &len);
	assert_true(len <= AUDIT_RECORD_MAX);
	assert_string_equal(json_string_value(json_object_get(rec, "verdict")), "exited");
	assert_int_equal(json_integer_value(json_object_get(rec, "record_max")), AUDIT_RECORD_MAX);
	json_t *cut = json_object_get(json_object_get(rec, "cut"), "execution.stdout.text");
	assert_int_equal(json_integer_value(json_object_get(cut, "bytes")), out_len);
	json_int_t kept = json_integer_value(json_object_get(cut, "kept"));
	assert_true(kept > 0 && kept < (json_int_t)out_len);
	const char *text = json_string_value(json_object_get(json_object_get(json_object_get(rec, "execution"), "stdout"), "text"));
	assert_int_equal(strlen(text), kept); /* a prefix, whole characters */
	assert_int_equal(strncmp(text, out, (size_t)kept), 0);
	/* The rest was small enough to stay as it was. */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(rec, "execution"), "wall_ms")), 12);
	json_decref(rec);

	rec = record_fields(dir, pos2.seq, &len);
	assert_true(len <= AUDIT_RECORD_MAX);
	cut = json_object_get(json_object_get(rec, "cut"), "assessment.findings");
	assert_int_equal(json_integer_value(json_object_get(cut, "items")), 25000);
	kept = json_integer_value(json_object_get(cut, "kept"));
	assert_true(kept > 1000 && kept < 25000);
	assert_int_equal(json_array_size(json_object_get(json_object_get(rec, "assessment"), "findings")), kept);
	json_decref(rec);
	free(out);
	free(err_text);
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ char *line = fixture_verify_line(log_dir, pub);
	assert_true(strncmp(line, "OK ", 3) == 0);
}

/* A log of 20 records with a checkpoint (recorded at seq 20), then 10 more
 * that no checkpoint has read back yet. */
static struct audit_log *log_with_unchecked_tail(const char *dir)
{
	struct audit_log *log = new_log(dir);
	fixture_append(log, 20);
	assert_int_equal(audit_checkpoint_now(log), 0);
	fixture_append(log, 10);
	return log;
}

/* What the writer says once it stopped, and that it takes nothing more. */
static void assert_stopped(struct audit_log *log, const char *names)
{
	char *why = NULL;
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_TAMPERED);
	if (!strstr(why, names) || !strstr(why, "was changed after the agent wrote it") ||
	    !strstr(why, "quarantine") || !strstr(why, "mai-agent verify"))
		fail_msg("the writer's message does not say what changed (%s) and how to recover: %s", names, why);
	free(why);
	assert_int_equal(audit_append(log, "job_accepted", NULL, NULL), -EBADMSG);
	assert_int_equal(audit_checkpoint_now(log), -EBADMSG);
}

static void test_running_writer_notices_a_changed_byte(void **state)
{
	const char *dir = *state;
	struct audit_log *log = log_with_unchecked_tail(dir);
	_cleanup_free_ char *ck = xasprintf("%s/audit/checkpoint", dir);
	size_t cl;
	_cleanup_free_ char *before = fixture_read(ck, &cl);
	assert_int_equal(audit_size(log), 31);
	change_record(dir, 25);
	assert_int_equal(audit_checkpoint_now(log), -EBADMSG);
	assert_stopped(log, "seq 25 ");
	/* No signature vouches for the changed log. */
	_cleanup_free_ char *after = fixture_read(ck, &cl);
	assert_string_equal(before, after);
	audit_close(log);
}

/* The record is changed and its hash and every later link made to match:
 * the chain holds, the root the writer computed does not. */
static void test_running_writer_notices_a_rewritten_chain(void **state)
{
	const char *dir = *state;
	struct audit_log *log = log_with_unchecked_tail(dir);
	char *text;
	size_t n;
	char **v = lines_of(dir, &text, &n);
	char *fresh[64] = { 0 };
	uint8_t prev[AUDIT_HASH_LEN];
	unhex_entry(v[22], prev);
	for (size_t i = 23; i < n; i++) {
		_cleanup_free_ char *body = xstrdup(v[i] + AUDIT_JSON_OFFSET);
		char *p = strstr(body, "\"n\":");
		if (i == 23)
			p[4] = p[4] == '9' ? '8' : '9';
		size_t len;
		audit_format_line(prev, i, strtoull(v[i] + 131 + AUDIT_SEQ_DIGITS, NULL, 10), body, &fresh[i], &len,
				  prev);
		fresh[i][len - 1] = '\0';
		v[i] = fresh[i];
	}
	write_lines(dir, v, n);
	for (size_t i = 0; i < 64; i++)
		free(fresh[i]);
	free(v);
	free(text);
	assert_int_equal(audit_checkpoint_now(log), -EBADMSG);
	assert_stopped(log, "seq 23 is not the record the agent wrote");
	audit_close(log);
}

static void test_running_writer_notices_records_cut(void **state)
{
	const char *dir = *state;
	struct audit_log *log = log_with_unchecked_tail(dir);
	cut_records(dir, 2);
	assert_int_equal(audit_checkpoint_now(log), -EBADMSG);
	assert_stopped(log, "records were cut");
	audit_close(log);
}

/* The writer reads back only what it has not read before: an untouched log
 * never stops it, checkpoint after checkpoint. */
static void test_untouched_log_never_stops_the_writer(void **state)
{
	const char *dir = *state;
	struct audit_log *log = new_log(dir);
	for (int i = 0; i < 20; i++) {
		fixture_append(log, 7);
		assert_int_equal(audit_checkpoint_now(log), 0);
	}
	char *why = NULL;
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_OK);
	assert_null(why);
	audit_close(log);
	log = open_log(dir);
	fixture_append(log, 3);
	assert_int_equal(audit_checkpoint_now(log), 0);
	audit_close(log);
}

/* Retention drops the segment in which the last reading back ended (the
 * checkpoint's own record opened a new segment): the next reading goes on
 * in the next segment, no false alarm. */
static void test_retention_under_the_reading_back_is_no_alarm(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.rotate_size = 4096;
	o.retention_age_s = 3600;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *log_dir = xasprintf("%s/audit", dir);
	assert_int_equal(audit_open(&o, &log, &err), 0);
	for (int round = 0; round < 3; round++) {
		/* Up to rotate_size: the checkpoint's record starts a segment. */
		for (;;) {
			fixture_append(log, 1);
			_cleanup_free_ uint64_t *firsts = NULL;
			size_t n = 0;
			struct stat st;
			assert_int_equal(audit_segments_list(log_dir, &firsts, &n), 0);
			_cleanup_free_ char *seg = audit_segment_path(log_dir, firsts[n - 1], "log");
			assert_int_equal(stat(seg, &st), 0);
			if (st.st_size >= 4096)
				break;
		}
		assert_int_equal(audit_checkpoint_now(log), 0);
		assert_int_equal(audit_retention_now(log, time(NULL) + 7200), 0);
	}
	fixture_append(log, 5);
	assert_int_equal(audit_checkpoint_now(log), 0);
	char *why = NULL;
	assert_int_equal(audit_health(log, &why), AUDIT_HEALTH_OK);
	audit_close(log);
	_cleanup_free_ char *pub = xasprintf("%s/k.pub", dir), *line = fixture_verify_line(log_dir, pub);
	assert_true(strncmp(line, "OK ", 3) == 0);
}

/* A restart on a changed log says so, not something about keys, and says
 * how to recover; doing that gives a new log and keeps the old as it was. */
static void test_restart_names_the_change_and_the_recovery_works(void **state)
{
	const char *dir = *state;
	struct audit_log *log = log_with_unchecked_tail(dir);
	audit_close(log);
	change_record(dir, 7);

	struct audit_options o = fixture_options(dir, "k", 0);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), -EBADMSG);
	if (!strstr(err, "was changed after the agent wrote it") || !strstr(err, "seq 7 at offset") ||
	    !strstr(err, "record content does not match its entry hash") || !strstr(err, "quarantine") ||
	    strstr(err, "keygen"))
		fail_msg("the restart message: %s", err);
	/* The recovery it names: the log moved aside as evidence, a new one. */
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", dir), *kept = xasprintf("%s/audit.quarantine", dir);
	_cleanup_free_ char *pub = xasprintf("%s/k.pub", dir);
	assert_int_equal(rename(log_dir, kept), 0);
	log = open_log(dir);
	fixture_append(log, 4);
	audit_close(log);
	_cleanup_free_ char *fresh = fixture_verify_line(log_dir, pub), *old = fixture_verify_line(kept, pub);
	assert_true(strncmp(fresh, "OK n=", 5) == 0);
	assert_true(strncmp(old, "FAIL seq=7: ", 12) == 0);
}

/* Whole records cut from the end leave no torn tail, but the signed
 * checkpoint covers them: the writer refuses to go on from there. */
static void test_start_refused_under_a_checkpoint_that_covers_more(void **state)
{
	const char *dir = *state;
	struct audit_log *log = new_log(dir);
	fixture_append(log, 12);
	audit_close(log); /* the checkpoint covers all 13 (and the checkpoint record) */
	cut_records(dir, 3);
	struct audit_options o = fixture_options(dir, "k", 0);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), -EBADMSG);
	if (!strstr(err, "covers 13 records but the log has 10: records were cut") || !strstr(err, "quarantine"))
		fail_msg("the refusal: %s", err);
}

/* A checkpoint whose root is not that of the records it covers (edited, or
 * another log's): the writer's start refuses it, naming what it signs. */
static void test_start_refused_under_a_checkpoint_of_another_root(void **state)
{
	const char *dir = *state;
	struct audit_log *log = new_log(dir);
	fixture_append(log, 5);
	audit_close(log);
	_cleanup_free_ char *ck = xasprintf("%s/audit/checkpoint", dir);
	size_t len;
	char *text = fixture_read(ck, &len);
	char *l2 = strchr(strchr(text, '\n') + 1, '\n') + 1, *end = strchr(l2, '\n');
	assert_int_equal(end - l2, 44); /* the root, 32 bytes in base64 */
	memcpy(l2, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", 44);
	fixture_write(ck, text, len);
	free(text);
	struct audit_options o = fixture_options(dir, "k", 0);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), -EBADMSG);
	if (!strstr(err, "do not have the root that") || !strstr(err, "checkpoint signs") ||
	    !strstr(err, "quarantine"))
		fail_msg("the refusal: %s", err);
}

/* The tree file is derived: lost, cut or damaged, it is re-derived from the
 * records at open and the sidecars' proofs verify. Its size is two hashes
 * a record at most, whatever the number of records. */
static void test_tree_file_rederived(void **state)
{
	const char *dir = *state;
	struct audit_log *log = new_log(dir);
	fixture_append(log, 300);
	audit_close(log);
	_cleanup_free_ char *tree = xasprintf("%s/audit/tree", dir), *pub = xasprintf("%s/k.pub", dir);
	struct stat st;
	assert_int_equal(stat(tree, &st), 0);
	uint64_t records = 301; /* and the checkpoint record */
	assert_int_equal((uint64_t)st.st_size, (2 * records - (uint64_t)__builtin_popcountll(records)) * 32);
	for (int round = 0; round < 3; round++) {
		if (round == 0) {
			assert_int_equal(unlink(tree), 0);
		} else if (round == 1) {
			assert_int_equal(truncate(tree, 100 * 32 + 7), 0);
		} else {
			size_t len;
			char *data = fixture_read(tree, &len);
			memset(data + 200 * 32, 0, 64);
			fixture_write(tree, data, len);
			free(data);
		}
		log = open_log(dir);
		uint64_t seqs[] = { 0, 150, 201, 299 };
		_cleanup_free_ char *side = xasprintf("%s/job%d.audit", dir, round);
		assert_int_equal(audit_sidecar_write(log, seqs, 4, side, NULL), 0);
		audit_close(log);
		struct audit_verify_report rep;
		assert_int_equal(audit_verify_sidecar(side, pub, &rep), 0);
		if (!rep.ok)
			fail_msg("round %d: %s", round, rep.reason);
		audit_verify_report_clear(&rep);
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_one_record_limit_for_writer_reader_and_verifier),
		T(test_record_at_the_limit),
		T(test_sequence_numbers_of_every_width),
		cmocka_unit_test(test_canonical_size_is_the_encoded_size),
		T(test_oversized_parts_cut_and_said_so),
		T(test_running_writer_notices_a_changed_byte),
		T(test_running_writer_notices_a_rewritten_chain),
		T(test_running_writer_notices_records_cut),
		T(test_untouched_log_never_stops_the_writer),
		T(test_retention_under_the_reading_back_is_no_alarm),
		T(test_restart_names_the_change_and_the_recovery_works),
		T(test_start_refused_under_a_checkpoint_that_covers_more),
		T(test_start_refused_under_a_checkpoint_of_another_root),
		T(test_tree_file_rederived),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
