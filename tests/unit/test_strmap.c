#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "strmap.h"

static int freed;
static void count_free(void *p)
{
	freed++;
	free(p);
}

static void sum_values(const char *key, void *value, void *arg)
{
	(void)key;
	*(long *)arg += *(int *)value;
}

static void test_put_get_replace_take_remove(void **state)
{
	struct strmap *m = strmap_new(count_free);
	char key[32];

	freed = 0;
	/* Enough keys to grow the table several times. */
	for (int i = 0; i < 1000; i++) {
		int *v = xmalloc(sizeof(*v));
		*v = i;
		snprintf(key, sizeof(key), "k%d.py", i);
		strmap_put(m, key, v);
	}
	assert_int_equal(strmap_size(m), 1000);
	for (int i = 0; i < 1000; i += 97) {
		snprintf(key, sizeof(key), "k%d.py", i);
		assert_int_equal(*(int *)strmap_get(m, key), i);
	}
	assert_null(strmap_get(m, "absent"));

	int *v = xmalloc(sizeof(*v));
	*v = -5;
	strmap_put(m, "k7.py", v); /* replaces 7, frees it */
	assert_int_equal(freed, 1);
	assert_int_equal(*(int *)strmap_get(m, "k7.py"), -5);
	assert_int_equal(strmap_size(m), 1000);

	long sum = 0;
	strmap_foreach(m, sum_values, &sum);
	assert_int_equal(sum, 999L * 1000 / 2 - 7 - 5);

	int *t = strmap_take(m, "k7.py");
	assert_int_equal(*t, -5);
	free(t);
	assert_int_equal(freed, 1);
	assert_null(strmap_take(m, "k7.py"));
	assert_true(strmap_remove(m, "k8.py"));
	assert_false(strmap_remove(m, "k8.py"));
	assert_int_equal(freed, 2);
	assert_int_equal(strmap_size(m), 998);
	strmap_free(m);
	assert_int_equal(freed, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_replace_take_remove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
