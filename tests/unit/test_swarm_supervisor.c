/* The Swarm supervisor's counters line (swarm_supervisor.h): taken off
 * stderr when it is one, read into the five counters and the time limit's
 * flag, negative ones (the cgroup has no such file) as -1; anything else
 * stays output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "swarm_supervisor.h"

static int parse(const char *payload, int64_t c[SWARM_COUNTERS_N])
{
	return swarm_supervisor_counters(payload, strlen(payload), c);
}

static void test_counters_line(void **state)
{
	int64_t c[SWARM_COUNTERS_N] = { 7, 7, 7, 7, 7, 7 };

	assert_int_equal(parse(SWARM_COUNTERS "1 0 52428800 123456789 -1 0\n", c), 1);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 52428800);
	assert_int_equal(c[3], 123456789);
	assert_int_equal(c[4], -1); /* no pids.peak */
	assert_int_equal(c[SWARM_TIMED_OUT], 0);
	/* gVisor: no cgroup files; killed at the time limit. */
	assert_int_equal(parse(SWARM_COUNTERS "-1 -1 -1 -1 -1 1\n", c), 1);
	for (int i = 0; i < SWARM_TIMED_OUT; i++)
		assert_int_equal(c[i], -1);
	assert_int_equal(c[SWARM_TIMED_OUT], 1);
	/* An older supervisor's five counters: not this one's line. */
	assert_int_equal(parse(SWARM_COUNTERS "1 0 52428800 123456789 7\n", c), 0);
}

static void test_not_counters(void **state)
{
	int64_t c[SWARM_COUNTERS_N] = { 7, 7, 7, 7, 7, 7 };

	/* A script's own stderr, even one that looks alike, is output. */
	assert_int_equal(parse("Traceback (most recent call last):\n", c), -1);
	assert_int_equal(parse("MAI-CG 1 2 3 4 5\n", c), -1);
	assert_int_equal(parse(SWARM_COUNTERS, c), -1); /* the marker alone */
	/* The marker with what cannot be read: taken off, no counters. */
	assert_int_equal(parse(SWARM_COUNTERS "1 2 three\n", c), 0);
	for (int i = 0; i < SWARM_COUNTERS_N; i++)
		assert_int_equal(c[i], 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters_line),
		cmocka_unit_test(test_not_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
