/* log.c: what a line looks like in a log file (--log-file), with and without
 * the RFC 3339 timestamp that stands in for journald's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "testdir.h"

/* Runs fn with stderr going to a file in dir, then returns what it wrote. */
static char *capture(const char *dir, void (*fn)(void))
{
	int saved = testdir_stderr_begin(dir);
	fn();
	return testdir_stderr_end(dir, saved);
}

static void two_lines(void)
{
	errno = ENOENT;
	log_warn("cannot open %s", "x.py");
	log_info("ready");
}

/* The wall clock's second, read as log.c reads it. Not time(): that reads
 * the kernel's coarse clock, which moves to the next second up to a tick
 * later (a stamp of :51 came between two time() calls that said :50, about
 * 1 run in 180). */
static time_t wall_second(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

static void test_a_log_file_line_starts_with_its_utc_time(void **state)
{
	/* A zone 5 h 45 min from UTC, so that local time cannot pass for UTC
	 * (a POSIX TZ string: no zone files needed). */
	setenv("TZ", "XYZ-5:45", 1);
	tzset();
	log_set_timestamps(true);
	time_t before = wall_second();
	_cleanup_free_ char *text = capture(*state, two_lines);
	time_t after = wall_second();
	log_set_timestamps(false);

	regex_t re;
	assert_int_equal(regcomp(&re, "^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})\\.[0-9]{3}Z "
				 "test_log: warn: cannot open x\\.py: No such file or directory\n"
				 "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z test_log: info: ready\n$",
			     REG_EXTENDED), 0);
	regmatch_t m[2];
	if (regexec(&re, text, 2, m, 0) != 0)
		fail_msg("not two stamped lines: '%s'", text);
	regfree(&re);
	/* The time is now, in UTC. */
	struct tm tm = { 0 };
	_cleanup_free_ char *stamp = xstrndup(text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
	assert_non_null(strptime(stamp, "%Y-%m-%dT%H:%M:%S", &tm));
	time_t t = timegm(&tm);
	if (t < before || t > after)
		fail_msg("stamp %s is not between %lld and %lld (UTC seconds)", stamp,
			 (long long)before, (long long)after);
}

static void test_without_a_file_the_line_is_as_before(void **state)
{
	_cleanup_free_ char *text = capture(*state, two_lines);
	assert_string_equal(text, "test_log: warn: cannot open x.py: No such file or directory\n"
				  "test_log: info: ready\n");
}

int main(void)
{
	log_init("test_log", LOG_LEVEL_INFO);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_log_file_line_starts_with_its_utc_time, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_without_a_file_the_line_is_as_before, testdir_setup,
						testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
