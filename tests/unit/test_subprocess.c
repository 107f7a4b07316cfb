/* subprocess.c: running a helper program and reading what it prints. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "subprocess.h"

static void test_output_and_status(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(subprocess_capture(argv, 10000, 1 << 16, false, &out, &len), 3);
	assert_string_equal(out, "out\n");
	assert_int_equal(len, 4);
	free(out);
	assert_int_equal(subprocess_capture(argv, 10000, 1 << 16, true, &out, &len), 3);
	assert_string_equal(out, "out\nerr\n");
	free(out);
}

static void test_output_cap_and_missing_program(void **state)
{
	char *flood[] = { "sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; exit 0", NULL };
	char *missing[] = { "mai-no-such-program", NULL };
	char *out = NULL;
	size_t len = 0;

	/* The rest is read and dropped, so the program is not left blocked. */
	assert_int_equal(subprocess_capture(flood, 10000, 10, false, &out, &len), 0);
	assert_int_equal(len, 10);
	assert_string_equal(out, "xxxxxxxxxx");
	free(out);
	assert_int_equal(subprocess_capture(missing, 10000, 100, false, &out, &len), -ENOENT);
	assert_null(out);
}

/* An output larger than the first buffer (64 KiB) is read whole. */
static void test_large_output_whole(void **state)
{
	char *big[] = { "sh", "-c", "head -c 300000 /dev/zero | tr '\\0' y", NULL };
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(subprocess_capture(big, 10000, 1 << 20, false, &out, &len), 0);
	assert_int_equal(len, 300000);
	assert_int_equal(strspn(out, "y"), 300000);
	free(out);
}

/* A program is looked up in PATH, or in /bin and /usr/bin without one. */
static void test_find_program(void **state)
{
	char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	assert_null(subprocess_find_program("mai-no-such-program"));
	assert_int_equal(setenv("PATH", "/nonexistent:/bin", 1), 0);
	char *sh = subprocess_find_program("sh");
	assert_string_equal(sh, "/bin/sh");
	free(sh);
	assert_int_equal(unsetenv("PATH"), 0);
	sh = subprocess_find_program("sh");
	assert_string_equal(sh, "/bin/sh");
	free(sh);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
}

static void test_timeout_kills(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(subprocess_capture(argv, 200, 100, false, &out, &len), -ETIMEDOUT);
	assert_null(out);
}

/* The agent blocks SIGHUP, SIGTERM and SIGINT for its signalfd: a program
 * it starts must not inherit that mask (it would ignore SIGTERM) nor an
 * ignored disposition. */
static void test_child_signals_are_default(void **state)
{
	char *argv[] = { "sh", "-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status", NULL };
	sigset_t block, old;
	char *out = NULL;
	size_t len = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGINT);
	assert_int_equal(sigprocmask(SIG_BLOCK, &block, &old), 0);
	signal(SIGUSR1, SIG_IGN);
	int rc = subprocess_capture(argv, 10000, 4096, false, &out, &len);
	signal(SIGUSR1, SIG_DFL);
	assert_int_equal(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	assert_int_equal(rc, 0);
	/* Bit n-1 stands for signal n. glibc's own real-time signals (32, 33)
	 * are outside what a program can reset, so only these are asked. */
	const unsigned long long ours = 1ULL << (SIGTERM - 1) | 1ULL << (SIGHUP - 1) |
					1ULL << (SIGINT - 1) | 1ULL << (SIGUSR1 - 1);
	const char *blk = strstr(out, "SigBlk:"), *ign = strstr(out, "SigIgn:");
	assert_non_null(blk);
	assert_non_null(ign);
	if ((strtoull(blk + 7, NULL, 16) | strtoull(ign + 7, NULL, 16)) & ours)
		fail_msg("the child started with SIGTERM, SIGHUP, SIGINT or SIGUSR1 blocked or "
			 "ignored:\n%s", out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_status),
		cmocka_unit_test(test_output_cap_and_missing_program),
		cmocka_unit_test(test_timeout_kills),
		cmocka_unit_test(test_large_output_whole),
		cmocka_unit_test(test_find_program),
		cmocka_unit_test(test_child_signals_are_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
