/* audit_format: one record line checked against what a tamperer would
 * change while keeping the line's own entry hash right (its chain link,
 * the checkpoint it cites, its number), and the retention anchor (base)
 * read back, whole and damaged. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "audit_format.h"
#include "fileio.h"
#include "macro.h"
#include "merkle.h"
#include "testdir.h"

/* The line of record seq (with its '\n') linked to prev, citing ckpt. */
static char *line_of(const uint8_t prev[AUDIT_HASH_LEN], uint64_t seq, uint64_t ckpt, size_t *len)
{
	_cleanup_free_ char *body = audit_format_body(seq, "job_accepted", NULL, "2026-01-01T00:00:00Z");
	char *line = NULL;
	uint8_t h[AUDIT_HASH_LEN];
	audit_format_line(prev, seq, ckpt, body, &line, len, h);
	return line;
}

static void test_line_checks(void **state)
{
	(void)state;
	uint8_t prev[AUDIT_HASH_LEN], other[AUDIT_HASH_LEN], h[AUDIT_HASH_LEN];
	memset(prev, 0x11, sizeof(prev));
	memset(other, 0x22, sizeof(other));
	uint64_t ckpt = 99;
	const char *why = NULL;
	size_t len;

	_cleanup_free_ char *good = line_of(prev, 7, 5, &len);
	assert_int_equal(audit_format_check(good, len - 1, prev, 7, h, &ckpt, &why), 0);
	assert_int_equal(ckpt, 5);
	/* Without the previous record at hand, the link is not checked. */
	assert_int_equal(audit_format_check(good, len - 1, NULL, 7, h, NULL, &why), 0);
	const struct {
		const uint8_t *linked, *expected;
		uint64_t seq, cites, at;
		const char *says;
	} cases[] = {
		{ other, prev, 7, 5, 7, "previous-hash link broken (record deleted, inserted or reordered before it)" },
		{ prev, prev, 7, 8, 7, "record cites a checkpoint beyond itself" },
		{ prev, prev, 6, 0, 7, "sequence number goes back (duplicated or reordered record)" },
		{ prev, prev, 8, 0, 7, "sequence number skips ahead (deleted record)" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *line = line_of(cases[i].linked, cases[i].seq, cases[i].cites, &len);
		why = NULL;
		assert_int_equal(audit_format_check(line, len - 1, cases[i].expected, cases[i].at, h, &ckpt,
						    &why), -EBADMSG);
		assert_string_equal(why, cases[i].says);
	}
}

/* The anchor written by retention reads back as written; every damage to
 * it is refused (a forged one could not match the signed root anyway, but
 * a reader must not take a malformed one). */
static void test_base_read(void **state)
{
	const char *dir = *state;
	uint8_t prev[AUDIT_HASH_LEN], back[AUDIT_HASH_LEN];
	struct merkle_compact c = { .size = 5, .n = 2 }, got;
	memset(prev, 0xab, sizeof(prev));
	memset(c.stack[0], 0x01, MERKLE_HASH_LEN);
	memset(c.stack[1], 0x02, MERKLE_HASH_LEN);

	assert_int_equal(audit_base_read(dir, back, &got), -ENOENT);
	assert_int_equal(audit_base_write(dir, prev, &c), 0);
	assert_int_equal(audit_base_read(dir, back, &got), 0);
	assert_memory_equal(back, prev, sizeof(prev));
	assert_int_equal(got.size, 5);
	assert_int_equal(got.n, 2);
	assert_memory_equal(got.stack[1], c.stack[1], MERKLE_HASH_LEN);

#define H "abababababababababababababababababababababababababababababababab"
#define ONE "0101010101010101010101010101010101010101010101010101010101010101"
	static const char *const damaged[] = {
		"",
		"mai-audit-base/2\n5\n",
		"mai-audit-base/1\n",
		"mai-audit-base/1\n-5\n",
		"mai-audit-base/1\n5x\n",
		"mai-audit-base/1\n0\n",
		"mai-audit-base/1\n5\n",
		"mai-audit-base/1\n5\nnot hex\n",
		"mai-audit-base/1\n1\n" H "\n" ONE "\n" ONE "\n", /* more subtrees than 1 record has */
		"mai-audit-base/1\n5\n" H "\n" ONE "\n",            /* fewer than 5 records have */
		"mai-audit-base/1\n5\n" H "\n" ONE "\nzz\n",       /* a subtree that is no hash */
	};
#undef H
#undef ONE
	for (size_t i = 0; i < ARRAY_SIZE(damaged); i++) {
		testdir_put(dir, "base", damaged[i]);
		if (audit_base_read(dir, back, &got) != -EBADMSG)
			fail_msg("case %zu was read: %s", i, damaged[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_checks),
		cmocka_unit_test_setup_teardown(test_base_read, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
