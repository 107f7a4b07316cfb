/* The sandbox's parts that need no Docker: the attach-stream demultiplexer,
 * the limits computation, finding a container's init in its cgroup. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "sandbox_attach.h"
#include "sandbox_cgroup.h"
#include "macro.h"
#include "sandbox_limits.h"
#include "sandbox_pool.h"
#include "sandbox_result.h"
#include "testdir.h"
#include "waitchild.h"

static size_t frame(uint8_t *buf, int stream, const char *payload)
{
	size_t n = strlen(payload);

	buf[0] = (uint8_t)stream;
	buf[1] = buf[2] = buf[3] = 0;
	buf[4] = (uint8_t)(n >> 24);
	buf[5] = (uint8_t)(n >> 16);
	buf[6] = (uint8_t)(n >> 8);
	buf[7] = (uint8_t)n;
	memcpy(buf + 8, payload, n);
	return n + 8;
}

/* Frames split at every possible byte boundary give the same result. */
static void test_demux_any_split(void **state)
{
	uint8_t buf[256];
	size_t len = frame(buf, 1, "hello ");

	len += frame(buf + len, 2, "oops\n");
	len += frame(buf + len, 1, "world\n");
	for (size_t cut = 0; cut <= len; cut++) {
		struct sandbox_demux d;
		sandbox_demux_init(&d, 1024, 1024);
		assert_int_equal(sandbox_demux_feed(&d, buf, cut), 0);
		assert_int_equal(sandbox_demux_feed(&d, buf + cut, len - cut), 0);
		assert_string_equal(d.out.data, "hello world\n");
		assert_string_equal(d.err.data, "oops\n");
		assert_false(d.out.truncated);
		sandbox_demux_clear(&d);
	}
}

static void test_demux_cap_counts_the_rest(void **state)
{
	uint8_t buf[256];
	size_t len = frame(buf, 1, "0123456789");
	struct sandbox_demux d;

	len += frame(buf + len, 1, "abcdef");
	sandbox_demux_init(&d, 12, 4);
	assert_int_equal(sandbox_demux_feed(&d, buf, len), 0);
	assert_string_equal(d.out.data, "0123456789ab");
	assert_int_equal(d.out.len, 12);
	assert_int_equal(d.out.total, 16);
	assert_true(d.out.truncated);
	assert_false(d.err.truncated);
	sandbox_demux_clear(&d);
}

static void test_demux_rejects_bad_header(void **state)
{
	static const uint8_t tty_bytes[] = "plain text, not frames";
	static const uint8_t stdin_frame[8] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	struct sandbox_demux d;

	sandbox_demux_init(&d, 16, 16);
	assert_int_equal(sandbox_demux_feed(&d, tty_bytes, sizeof(tty_bytes) - 1), -EPROTO);
	sandbox_demux_clear(&d);
	sandbox_demux_init(&d, 16, 16);
	assert_int_equal(sandbox_demux_feed(&d, stdin_frame, 8), -EPROTO);
	sandbox_demux_clear(&d);
}

#define MARK "\x1eMAI-END 00112233445566778899aabbccddeeff\n"

/* The end marker, split anywhere across frames and streams, is seen on
 * both streams and taken off; the output before it is untouched. */
static void test_demux_marker_any_split(void **state)
{
	uint8_t buf[512];
	size_t len = frame(buf, 1, "result 42\n");

	len += frame(buf + len, 2, "warning\n" MARK);
	len += frame(buf + len, 1, MARK);
	for (size_t cut = 0; cut <= len; cut++) {
		struct sandbox_demux d;
		sandbox_demux_init(&d, 1024, 1024);
		sandbox_demux_expect_marker(&d, MARK);
		assert_int_equal(sandbox_demux_feed(&d, buf, cut), 0);
		/* Ended only once both streams' markers are whole. */
		assert_int_equal(sandbox_demux_ended(&d), cut == len);
		assert_int_equal(sandbox_demux_marker_seen(&d), cut == len);
		assert_int_equal(sandbox_demux_feed(&d, buf + cut, len - cut), 0);
		assert_true(sandbox_demux_ended(&d));
		assert_true(sandbox_demux_marker_seen(&d));
		sandbox_demux_strip_marker(&d);
		assert_string_equal(d.out.data, "result 42\n");
		assert_int_equal(d.out.total, 10);
		assert_string_equal(d.err.data, "warning\n");
		assert_int_equal(d.err.total, 8);
		assert_false(d.out.truncated || d.err.truncated);
		sandbox_demux_clear(&d);
	}
}

/* A marker with another nonce is the script's output: kept. One that more
 * output follows has not ended the streams, and what follows it came from a
 * process the script left behind: cut with the marker, its nonce never
 * shown, and counted apart. */
static void test_demux_marker_only_at_the_end(void **state)
{
	static const char other[] = "\x1eMAI-END ffffffffffffffffffffffffffffffff\n";
	uint8_t buf[512];
	size_t len = frame(buf, 1, MARK "more\n");
	struct sandbox_demux d;

	len += frame(buf + len, 2, other);
	sandbox_demux_init(&d, 1024, 1024);
	sandbox_demux_expect_marker(&d, MARK);
	assert_int_equal(sandbox_demux_feed(&d, buf, len), 0);
	assert_false(sandbox_demux_ended(&d));
	sandbox_demux_strip_marker(&d);
	assert_string_equal(d.out.data, "");
	assert_int_equal(d.out.total, 0);
	assert_int_equal(d.out.after_end, 5);
	assert_string_equal(d.err.data, other);
	assert_int_equal(d.err.after_end, 0);
	sandbox_demux_clear(&d);

	/* Without a marker expected, nothing ever ends the streams. */
	sandbox_demux_init(&d, 1024, 1024);
	assert_int_equal(sandbox_demux_feed(&d, buf, len), 0);
	assert_false(sandbox_demux_ended(&d));
	sandbox_demux_clear(&d);
}

/* A marker that output of a process left behind follows, split anywhere,
 * has still come (the bootstrap may stop waiting), though the streams have
 * not ended; another nonce's never comes. */
static void test_demux_marker_seen_before_more(void **state)
{
	static const char other[] = "\x1eMAI-END ffffffffffffffffffffffffffffffff\n";
	uint8_t buf[512];
	size_t len = frame(buf, 1, "a" MARK "more\n");

	len += frame(buf + len, 2, "b" MARK);
	len += frame(buf + len, 2, "late\n");
	for (size_t cut = 0; cut <= len; cut++) {
		struct sandbox_demux d;
		sandbox_demux_init(&d, 1024, 1024);
		sandbox_demux_expect_marker(&d, MARK);
		assert_int_equal(sandbox_demux_feed(&d, buf, cut), 0);
		assert_int_equal(sandbox_demux_feed(&d, buf + cut, len - cut), 0);
		assert_true(sandbox_demux_marker_seen(&d));
		assert_false(sandbox_demux_ended(&d));
		sandbox_demux_strip_marker(&d);
		assert_string_equal(d.out.data, "a");
		assert_int_equal(d.out.total, 1);
		assert_int_equal(d.out.after_end, 5);
		assert_string_equal(d.err.data, "b");
		assert_int_equal(d.err.after_end, 5);
		assert_null(memmem(d.out.data, d.out.len, "0011", 4));
		sandbox_demux_clear(&d);
	}
	len = frame(buf, 1, MARK);
	len += frame(buf + len, 2, other);
	struct sandbox_demux d;
	sandbox_demux_init(&d, 1024, 1024);
	sandbox_demux_expect_marker(&d, MARK);
	assert_int_equal(sandbox_demux_feed(&d, buf, len), 0);
	assert_true(d.out.marker_seen);
	assert_false(sandbox_demux_marker_seen(&d));
	sandbox_demux_clear(&d);
}

/* At the cap: output of exactly the cap is whole and not truncated though
 * the marker went past it; output past the cap is truncated at the cap,
 * and its total excludes the marker. */
static void test_demux_marker_at_the_cap(void **state)
{
	uint8_t buf[512];
	size_t len = frame(buf, 1, "0123456789" MARK);
	struct sandbox_demux d;

	len += frame(buf + len, 2, MARK);
	sandbox_demux_init(&d, 10, 64);
	sandbox_demux_expect_marker(&d, MARK);
	assert_int_equal(sandbox_demux_feed(&d, buf, len), 0);
	assert_true(d.out.truncated); /* until the marker is taken off */
	sandbox_demux_strip_marker(&d);
	assert_string_equal(d.out.data, "0123456789");
	assert_int_equal(d.out.total, 10);
	assert_false(d.out.truncated);
	sandbox_demux_clear(&d);

	len = frame(buf, 1, "0123456789abc" MARK);
	sandbox_demux_init(&d, 10, 64);
	sandbox_demux_expect_marker(&d, MARK);
	assert_int_equal(sandbox_demux_feed(&d, buf, len), 0);
	sandbox_demux_strip_marker(&d);
	assert_string_equal(d.out.data, "0123456789");
	assert_int_equal(d.out.len, 10);
	assert_int_equal(d.out.total, 13);
	assert_true(d.out.truncated);
	sandbox_demux_clear(&d);
}

static void write_procs(const char *dir, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The init of a cgroup is the one process whose parent is outside it. The
 * list is a file in a test directory standing in for a cgroup; the pids in
 * it are real processes. */
static void test_cgroup_init(void **state)
{
	const char *dir = *state;
	int release;
	pid_t child = waitchild_start(0, &release);
	char text[64];

	snprintf(text, sizeof(text), "%d\n%d\n", (int)child, (int)getpid());
	write_procs(dir, text);
	assert_int_equal(sandbox_cgroup_init(dir), getpid());
	snprintf(text, sizeof(text), "%d\n", (int)child);
	write_procs(dir, text);
	assert_int_equal(sandbox_cgroup_init(dir), child);
	/* Two roots (the child and init are unrelated): no answer. */
	snprintf(text, sizeof(text), "%d\n1\n", (int)child);
	write_procs(dir, text);
	assert_int_equal(sandbox_cgroup_init(dir), -ESRCH);
	write_procs(dir, "");
	assert_int_equal(sandbox_cgroup_init(dir), -ESRCH);
	close(release);
	waitpid(child, NULL, 0);
	assert_int_equal(sandbox_cgroup_init("/nonexistent-cgroup"), -ENOENT);
}

/* The bootstrap of a container is its init's first child: the one started
 * first, not an orphan the init adopted later (a pid may be lower after
 * the pids wrap, so the start time decides). */
static void test_proc_first_child(void **state)
{
	int release1, release2;
	pid_t first = waitchild_start(0, &release1);

	assert_int_equal(sandbox_proc_first_child(getpid()), first);
	/* A later child: one clock tick at least after the first. */
	usleep(20000);
	pid_t second = waitchild_start(0, &release2);
	assert_int_equal(sandbox_proc_first_child(getpid()), first);
	/* The second holds the first's pipe too: it goes first. */
	close(release2);
	waitpid(second, NULL, 0);
	assert_int_equal(sandbox_proc_first_child(getpid()), first);
	close(release1);
	waitpid(first, NULL, 0);
	assert_int_equal(sandbox_proc_first_child(getpid()), -ESRCH);
	assert_true(sandbox_proc_first_child(0x7ffffffe) < 0); /* no such process */
}

/* A warm container is ready once its bootstrap blocks reading its stdin;
 * a process that waits for something else is not. */
static void test_proc_reads_stdin(void **state)
{
	int in[2], release;
	pid_t sleeper = waitchild_start(0, &release); /* waits in read() of its own pipe */

	assert_int_equal(pipe(in), 0);
	pid_t reader = fork();
	assert_true(reader >= 0);
	if (reader == 0) {
		char b;
		dup2(in[0], 0);
		close(in[1]);
		_exit(read(0, &b, 1) == 1 ? 0 : 1);
	}
	close(in[0]);
	bool seen = false;
	for (int i = 0; i < 2000 && !seen; i++) {
		seen = sandbox_proc_reads_stdin(reader);
		if (!seen)
			usleep(1000);
	}
	assert_true(seen);
	assert_false(sandbox_proc_reads_stdin(sleeper)); /* a read, but not of fd 0 */
	assert_false(sandbox_proc_reads_stdin(getpid()));  /* running */
	assert_int_equal(write(in[1], "x", 1), 1);
	close(in[1]);
	waitpid(reader, NULL, 0);
	close(release);
	waitpid(sleeper, NULL, 0);
	assert_false(sandbox_proc_reads_stdin(reader)); /* gone */
}

static const struct sandbox_limits base = {
	.memory_bytes = 256LL << 20, .nano_cpus = 1000000000, .pids = 64,
	.tmpfs_bytes = 32LL << 20, .nofile = 128, .fsize_bytes = 16LL << 20,
	.timeout_ms = 10000, .stdout_max = 1 << 20, .stderr_max = 1 << 20,
};
static const struct sandbox_machine big = { .cpus_nano = 8000000000LL,
					    .memory_available = 64LL << 30 };

static void test_limits_scale(void **state)
{
	struct sandbox_code_metrics none = { 0 };
	struct sandbox_code_metrics loops = { .loops = 4, .lines = 100, .max_nesting = 2 };
	struct sandbox_code_metrics huge = { .loops = 1000, .lines = 100000, .imports = 500,
					     .bytes = 1 << 24 };
	struct sandbox_limits l;

	sandbox_limits_compute(&base, &none, true, &big, 1, &l);
	assert_memory_equal(&l, &base, sizeof(l));
	/* 4 loops * 5 + 100 lines / 50 + nesting 2 * 5 = +32% time. */
	sandbox_limits_compute(&base, &loops, true, &big, 1, &l);
	assert_int_equal(l.timeout_ms, 13200);
	assert_int_equal(l.memory_bytes, 256LL << 20);
	/* Never more than twice the base. */
	sandbox_limits_compute(&base, &huge, true, &big, 1, &l);
	assert_int_equal(l.timeout_ms, 20000);
	assert_int_equal(l.memory_bytes, 512LL << 20);
	/* scale: false keeps the base. */
	sandbox_limits_compute(&base, &huge, false, &big, 1, &l);
	assert_int_equal(l.timeout_ms, 10000);
	assert_int_equal(l.memory_bytes, 256LL << 20);
}

static void test_limits_clamped_by_machine(void **state)
{
	struct sandbox_code_metrics none = { 0 };
	struct sandbox_machine small = { .cpus_nano = 500000000, .memory_available = 600LL << 20 };
	struct sandbox_machine tiny = { .cpus_nano = 1000000, .memory_available = 10LL << 20 };
	struct sandbox_limits l;

	/* 600 MiB shared by 4 workers: 150 MiB each; half a CPU at most. */
	sandbox_limits_compute(&base, &none, true, &small, 4, &l);
	assert_int_equal(l.memory_bytes, 150LL << 20);
	assert_int_equal(l.nano_cpus, 500000000);
	assert_int_equal(l.tmpfs_bytes, 32LL << 20);
	/* Floors keep python3 able to start; the tmpfs shrinks with memory. */
	sandbox_limits_compute(&base, &none, true, &tiny, 2, &l);
	assert_int_equal(l.memory_bytes, SANDBOX_MEMORY_FLOOR);
	assert_int_equal(l.nano_cpus, SANDBOX_CPU_FLOOR);
	assert_int_equal(l.tmpfs_bytes, SANDBOX_MEMORY_FLOOR / 2);
}

/* pool_size: auto. [CPUs (nano), available memory, workers, size] */
static void test_pool_auto_size(void **state)
{
	static const struct {
		int64_t cpus_nano, memory;
		unsigned workers, want;
	} cases[] = {
		{ 2000000000LL, 24LL << 30, 2, 2 },   /* this project's machines */
		{ 16000000000LL, 64LL << 30, 8, 2 },  /* more does not help an idle agent */
		{ 2000000000LL, 24LL << 30, 1, 1 },   /* one worker uses one at a time */
		{ 1000000000LL, 4LL << 30, 4, 1 },    /* one CPU */
		{ 500000000LL, 4LL << 30, 4, 1 },     /* half a CPU rounds up to one */
		{ 4000000000LL, 1LL << 30, 4, 1 },    /* 1 GB: 64 MB budget, one per level */
		{ 4000000000LL, 256LL << 20, 4, 0 },  /* too little memory: off */
		{ 4000000000LL, 2LL << 30, 0, 2 },    /* workers unknown */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned got = sandbox_pool_auto_size(cases[i].cpus_nano, cases[i].memory,
						      cases[i].workers);
		if (got != cases[i].want)
			fail_msg("case %zu: %u, expected %u", i, got, cases[i].want);
	}
}

static void test_machine_probe_sane(void **state)
{
	struct sandbox_machine m;

	sandbox_machine_probe(&m);
	assert_true(m.cpus_nano >= 1000000);
	assert_true(m.memory_available > 16LL << 20);
}

static void test_verdict_names(void **state)
{
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_PIDS_LIMIT), "pids_limit");
	assert_string_equal(sandbox_verdict_to_string(SANDBOX_VERDICT_SANDBOX_ERROR),
			    "sandbox_error");
}

/* Output that is not UTF-8 reaches the result as U+FFFD, one per byte
 * that does not begin a valid sequence: a stray continuation byte, a
 * sequence cut by the end, a lead byte without its continuation, an
 * overlong form, a surrogate; valid sequences and NUL (as U+FFFD) around
 * them are kept in order. */
static void test_result_text_not_utf8(void **state)
{
	static const struct { const char *in; size_t len; const char *out; } cases[] = {
		{ "a\x80" "b", 3, "a\xef\xbf\xbd" "b" },
		{ "\xf8x", 2, "\xef\xbf\xbdx" },
		{ "ok\xc3", 3, "ok\xef\xbf\xbd" },
		{ "\xc3(", 2, "\xef\xbf\xbd(" },
		{ "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "caf\xc3\xa9\0\xf0\x9f\x90\x8d", 10, "caf\xc3\xa9\xef\xbf\xbd\xf0\x9f\x90\x8d" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sandbox_result r = { .verdict = SANDBOX_VERDICT_EXITED };
		r.out.data = (char *)cases[i].in;
		r.out.len = cases[i].len;
		json_t *j = sandbox_result_to_json(&r);
		const char *text = json_string_value(json_object_get(json_object_get(j, "stdout"), "text"));
		if (!text || strcmp(text, cases[i].out) != 0)
			fail_msg("case %zu: '%s'", i, text);
		json_decref(j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demux_any_split),
		cmocka_unit_test(test_demux_cap_counts_the_rest),
		cmocka_unit_test(test_demux_rejects_bad_header),
		cmocka_unit_test(test_demux_marker_any_split),
		cmocka_unit_test(test_demux_marker_only_at_the_end),
		cmocka_unit_test(test_demux_marker_seen_before_more),
		cmocka_unit_test(test_demux_marker_at_the_cap),
		cmocka_unit_test_setup_teardown(test_cgroup_init, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_proc_first_child),
		cmocka_unit_test(test_proc_reads_stdin),
		cmocka_unit_test(test_limits_scale),
		cmocka_unit_test(test_limits_clamped_by_machine),
		cmocka_unit_test(test_pool_auto_size),
		cmocka_unit_test(test_machine_probe_sane),
		cmocka_unit_test(test_verdict_names),
		cmocka_unit_test(test_result_text_not_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
