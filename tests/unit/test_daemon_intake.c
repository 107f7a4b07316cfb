/* Fair intake (daemon_intake.h): names taken round-robin by writer, a name
 * reported again keeps its place, an answer takes its script out at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "daemon_intake.h"

static void put(struct daemon_intake *q, uid_t uid, const char *rel)
{
	struct drop_writer w = { .from = DROP_WRITER_UNKNOWN };
	daemon_intake_put(q, uid, rel, NULL, &w);
}

/* The order daemon_intake_next() hands the names out in, joined by ' '. */
static void expect_order(struct daemon_intake *q, const char *want)
{
	char got[512] = "";
	struct daemon_intake_item it;
	while (daemon_intake_next(q, &it)) {
		if (*got)
			strcat(got, " ");
		strcat(got, it.rel);
		daemon_intake_item_clear(&it);
	}
	assert_string_equal(got, want);
	assert_int_equal(daemon_intake_count(q), 0);
}

/* A flood of one writer's names does not push back another's: after the
 * first of C's, W's comes next, then C's and a third writer's alternate. */
static void test_round_robin_by_writer(void **state)
{
	(void)state;
	struct daemon_intake *q = daemon_intake_new();
	char name[16];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "c%d.py", i);
		put(q, 1001, name);
	}
	put(q, 1002, "w.py");
	put(q, 1003, "x0.py");
	put(q, 1003, "x1.py");
	assert_int_equal(daemon_intake_count(q), 8);
	expect_order(q, "c0.py w.py x0.py c1.py x1.py c2.py c3.py c4.py");
	daemon_intake_free(q);
}

/* Reported again, a name keeps its place and the newer report (its
 * snapshot and writer); reported for another writer, it moves to that
 * writer's queue. */
static void test_reported_again(void **state)
{
	(void)state;
	struct daemon_intake *q = daemon_intake_new();
	put(q, 1001, "a.py");
	put(q, 1001, "b.py");
	put(q, 1002, "w.py");

	struct drop_taken t = { .status = INTAKE_OK };
	t.snap.data = (uint8_t *)strdup("print(1)\n");
	t.snap.len = 9;
	t.snap.uid = 1001;
	struct drop_writer w = { .from = DROP_WRITER_REQUEST, .uid = 1001 };
	daemon_intake_put(q, 1001, "a.py", &t, &w);
	assert_null(t.snap.data); /* taken over */
	assert_int_equal(daemon_intake_count(q), 3);

	/* b.py renamed over by someone else: it is theirs now. */
	put(q, 1003, "b.py");

	struct daemon_intake_item it;
	assert_true(daemon_intake_next(q, &it));
	assert_string_equal(it.rel, "a.py");
	assert_true(it.has_taken);
	assert_int_equal(it.taken.snap.len, 9);
	assert_int_equal(it.writer.from, DROP_WRITER_REQUEST);
	daemon_intake_item_clear(&it);
	expect_order(q, "w.py b.py");
	daemon_intake_free(q);
}

/* An answer takes its script out of its queue at once; the rest keeps its
 * order, and a queue left empty gives its turn away. */
static void test_take_out(void **state)
{
	(void)state;
	struct daemon_intake *q = daemon_intake_new();
	put(q, 1001, "c0.py");
	put(q, 1001, "c1.py");
	put(q, 1002, "w.py");
	put(q, 1001, "c2.py");

	struct daemon_intake_item it;
	assert_false(daemon_intake_take(q, "nothing.py", &it));
	assert_true(daemon_intake_take(q, "w.py", &it));
	assert_string_equal(it.rel, "w.py");
	daemon_intake_item_clear(&it);
	assert_true(daemon_intake_take(q, "c1.py", &it));
	daemon_intake_item_clear(&it);
	expect_order(q, "c0.py c2.py");

	/* Empty, then used again: no stale turn, nothing lost. */
	put(q, 1002, "w2.py");
	put(q, 1001, "c3.py");
	expect_order(q, "w2.py c3.py");
	daemon_intake_free(q);
}

/* What still waits when the queue is freed is released (ASan's leak check
 * fails this test otherwise). */
static void test_free_with_names_waiting(void **state)
{
	(void)state;
	struct daemon_intake *q = daemon_intake_new();
	struct drop_taken t = { .status = INTAKE_OK };
	t.snap.data = (uint8_t *)strdup("x = 1\n");
	t.snap.len = 6;
	struct drop_writer w = { .from = DROP_WRITER_REQUEST, .uid = 7 };
	daemon_intake_put(q, 7, "a.py", &t, &w);
	put(q, 8, "b.py");
	daemon_intake_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_robin_by_writer),
		cmocka_unit_test(test_reported_again),
		cmocka_unit_test(test_take_out),
		cmocka_unit_test(test_free_with_names_waiting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
