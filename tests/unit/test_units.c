#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "units.h"

struct unit_case {
	const char *text;
	enum units_error error;
	uint64_t value;
};

static const struct unit_case size_cases[] = {
	{ "0", UNITS_OK, 0 },
	{ "1", UNITS_OK, 1 },
	{ "4096", UNITS_OK, 4096 },
	{ "64k", UNITS_OK, 64ULL << 10 },
	{ "512m", UNITS_OK, 512ULL << 20 },
	{ "512M", UNITS_OK, 512ULL << 20 },
	{ "1g", UNITS_OK, 1ULL << 30 },
	{ "2t", UNITS_OK, 2ULL << 40 },
	{ "0m", UNITS_OK, 0 },
	{ "18446744073709551615", UNITS_OK, UINT64_MAX },
	{ "18446744073709551616", UNITS_OVERFLOW, 0 },
	{ "16777216t", UNITS_OVERFLOW, 0 },
	{ "16777215t", UNITS_OK, 16777215ULL << 40 },
	{ "99999999999999999999999", UNITS_OVERFLOW, 0 },
	{ "", UNITS_EMPTY, 0 },
	{ "  ", UNITS_EMPTY, 0 },
	{ "-1", UNITS_NEGATIVE, 0 },
	{ "-1m", UNITS_NEGATIVE, 0 },
	{ "1.5m", UNITS_FRACTION, 0 },
	{ "1,5m", UNITS_FRACTION, 0 },
	{ "10x", UNITS_BAD_UNIT, 0 },
	{ "1mb", UNITS_BAD_UNIT, 0 },
	{ "1 m", UNITS_BAD_UNIT, 0 },
	{ "1m ", UNITS_BAD_UNIT, 0 },
	{ " 1m", UNITS_NOT_NUMBER, 0 },
	{ "+1", UNITS_NOT_NUMBER, 0 },
	{ "m", UNITS_NOT_NUMBER, 0 },
	{ "0x10", UNITS_BAD_UNIT, 0 },
};

static const struct unit_case duration_cases[] = {
	{ "0", UNITS_OK, 0 },
	{ "0s", UNITS_OK, 0 },
	{ "500ms", UNITS_OK, 500 },
	{ "120s", UNITS_OK, 120000 },
	{ "2m", UNITS_OK, 120000 },
	{ "1h", UNITS_OK, 3600000 },
	{ "7d", UNITS_OK, 7ULL * 86400000 },
	{ "18446744073709551615ms", UNITS_OK, UINT64_MAX },
	{ "18446744073709552s", UNITS_OVERFLOW, 0 },
	{ "213503982335d", UNITS_OVERFLOW, 0 },
	{ "30", UNITS_NO_UNIT, 0 },
	{ "", UNITS_EMPTY, 0 },
	{ "  ", UNITS_EMPTY, 0 },
	{ "-1s", UNITS_NEGATIVE, 0 },
	{ "1.5m", UNITS_FRACTION, 0 },
	{ "10x", UNITS_BAD_UNIT, 0 },
	{ "1h30m", UNITS_BAD_UNIT, 0 },
	{ "5 s", UNITS_BAD_UNIT, 0 },
	{ "5S", UNITS_BAD_UNIT, 0 },
	{ "s", UNITS_NOT_NUMBER, 0 },
};

static void run_cases(const struct unit_case *cases, size_t n,
		      enum units_error (*parse)(const char *, uint64_t *))
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 12345;
		enum units_error e = parse(cases[i].text, &v);
		if (e != cases[i].error)
			fail_msg("'%s': got %s, expected %s", cases[i].text, units_error_to_string(e),
				 units_error_to_string(cases[i].error));
		if (e == UNITS_OK && v != cases[i].value)
			fail_msg("'%s': got %llu", cases[i].text, (unsigned long long)v);
		if (e != UNITS_OK)
			assert_int_equal(v, 12345); /* untouched on error */
	}
}

static void test_sizes(void **state)
{
	(void)state;
	run_cases(size_cases, sizeof(size_cases) / sizeof(size_cases[0]), units_parse_size);
}

static void test_durations(void **state)
{
	(void)state;
	run_cases(duration_cases, sizeof(duration_cases) / sizeof(duration_cases[0]),
		  units_parse_duration);
}

static void test_format_round_trips(void **state)
{
	static const struct { uint64_t v; const char *size, *duration; } cases[] = {
		{ 0, "0", "0" },
		{ 1, "1", "1ms" },
		{ 1000, "1000", "1s" },
		{ 1024, "1k", "1024ms" },
		{ 1536, "1536", "1536ms" },
		{ 1ULL << 20, "1m", "1048576ms" },
		{ 3ULL << 29, "1536m", "1610612736ms" },
		{ 60000, "60000", "1m" },
		{ 5400000, "5400000", "90m" },
		{ 86400000, "84375k", "1d" },
		{ UINT64_MAX, "18446744073709551615", "18446744073709551615ms" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[UNITS_BUF_LEN];
		uint64_t back = 0;

		units_format_size(cases[i].v, buf);
		assert_string_equal(buf, cases[i].size);
		assert_int_equal(units_parse_size(buf, &back), UNITS_OK);
		assert_true(back == cases[i].v);
		units_format_duration(cases[i].v, buf);
		assert_string_equal(buf, cases[i].duration);
		assert_int_equal(units_parse_duration(buf, &back), UNITS_OK);
		assert_true(back == cases[i].v);
	}
}

/* An age is rounded down to one unit, each unit from twice the next
 * smaller one on; a negative age is unknown. */
static void test_age(void **state)
{
	(void)state;
	static const struct {
		long long s;
		const char *text;
	} cases[] = {
		{ -1, "?" },        { 0, "0 s" },       { 1, "1 s" },         { 119, "119 s" },
		{ 120, "2 min" },   { 179, "2 min" },   { 7199, "119 min" },  { 7200, "2 h" },
		{ 86399, "23 h" },  { 172799, "47 h" }, { 172800, "2 d" },   { 864000, "10 d" },
	};
	char buf[UNITS_BUF_LEN];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		units_format_age(cases[i].s, buf);
		assert_string_equal(buf, cases[i].text);
	}
}

static void test_error_phrases(void **state)
{
	(void)state;
	assert_string_equal(units_error_to_string(UNITS_FRACTION), "has a fraction");
	assert_string_equal(units_error_to_string(UNITS_OVERFLOW), "is too large");
	assert_string_equal(units_error_to_string(UNITS_NO_UNIT), "has no unit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_format_round_trips),
		cmocka_unit_test(test_age),
		cmocka_unit_test(test_error_phrases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
