#include "units.h"

#include <stdio.h>
#include <string.h>

struct units_suffix {
	const char *name;
	uint64_t factor;
};

static const struct units_suffix size_suffixes[] = {
	{ "t", 1ULL << 40 }, { "T", 1ULL << 40 },
	{ "g", 1ULL << 30 }, { "G", 1ULL << 30 },
	{ "m", 1ULL << 20 }, { "M", 1ULL << 20 },
	{ "k", 1ULL << 10 }, { "K", 1ULL << 10 },
	{ "", 1 },
};

static const struct units_suffix duration_suffixes[] = {
	{ "d", 86400000ULL },
	{ "h", 3600000ULL },
	{ "m", 60000ULL },
	{ "s", 1000ULL },
	{ "ms", 1ULL },
};

const char *units_error_to_string(enum units_error e)
{
	switch (e) {
	case UNITS_OK:
		return "is valid";
	case UNITS_EMPTY:
		return "is empty";
	case UNITS_NEGATIVE:
		return "is negative";
	case UNITS_FRACTION:
		return "has a fraction";
	case UNITS_NOT_NUMBER:
		return "does not start with a number";
	case UNITS_BAD_UNIT:
		return "has an unknown unit";
	case UNITS_NO_UNIT:
		return "has no unit";
	case UNITS_OVERFLOW:
		return "is too large";
	}
	return "is invalid";
}

/* Reads the leading digits of s into *value and points *rest after them. */
static enum units_error units_number(const char *s, uint64_t *value, const char **rest)
{
	const char *p = s;
	uint64_t v = 0;

	if (s[strspn(s, " \t")] == '\0')
		return UNITS_EMPTY;
	if (*s == '-')
		return UNITS_NEGATIVE;
	if (*s < '0' || *s > '9')
		return UNITS_NOT_NUMBER;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return UNITS_OVERFLOW;
		v = v * 10 + d;
	}
	if (*p == '.' || *p == ',')
		return UNITS_FRACTION;
	*value = v;
	*rest = p;
	return UNITS_OK;
}

static enum units_error units_scale(uint64_t v, const char *unit,
				    const struct units_suffix *table, size_t n, uint64_t *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(unit, table[i].name) != 0)
			continue;
		if (v > UINT64_MAX / table[i].factor)
			return UNITS_OVERFLOW;
		*out = v * table[i].factor;
		return UNITS_OK;
	}
	return UNITS_BAD_UNIT;
}

enum units_error units_parse_size(const char *s, uint64_t *bytes)
{
	const char *unit = NULL;
	uint64_t v = 0;
	enum units_error e = units_number(s, &v, &unit);

	if (e != UNITS_OK)
		return e;
	return units_scale(v, unit, size_suffixes, ARRAY_SIZE(size_suffixes), bytes);
}

enum units_error units_parse_duration(const char *s, uint64_t *ms)
{
	const char *unit = NULL;
	uint64_t v = 0;
	enum units_error e = units_number(s, &v, &unit);

	if (e != UNITS_OK)
		return e;
	if (*unit == '\0') {
		/* Zero means zero in any unit; any other bare number is ambiguous. */
		if (v != 0)
			return UNITS_NO_UNIT;
		*ms = 0;
		return UNITS_OK;
	}
	return units_scale(v, unit, duration_suffixes, ARRAY_SIZE(duration_suffixes), ms);
}

static void units_format(uint64_t v, const struct units_suffix *table, size_t n,
			 size_t step, char out[UNITS_BUF_LEN])
{
	if (v == 0) {
		snprintf(out, UNITS_BUF_LEN, "0");
		return;
	}
	for (size_t i = 0; i < n; i += step) {
		if (v % table[i].factor == 0) {
			snprintf(out, UNITS_BUF_LEN, "%llu%s",
				 (unsigned long long)(v / table[i].factor), table[i].name);
			return;
		}
	}
	snprintf(out, UNITS_BUF_LEN, "%llu", (unsigned long long)v);
}

void units_format_size(uint64_t bytes, char out[UNITS_BUF_LEN])
{
	/* step 2: print only the lower-case spelling of each unit */
	units_format(bytes, size_suffixes, ARRAY_SIZE(size_suffixes), 2, out);
}

void units_format_duration(uint64_t ms, char out[UNITS_BUF_LEN])
{
	units_format(ms, duration_suffixes, ARRAY_SIZE(duration_suffixes), 1, out);
}

void units_format_age(long long s, char out[UNITS_BUF_LEN])
{
	if (s < 0)
		snprintf(out, UNITS_BUF_LEN, "?");
	else if (s < 120)
		snprintf(out, UNITS_BUF_LEN, "%lld s", s);
	else if (s < 2 * 3600)
		snprintf(out, UNITS_BUF_LEN, "%lld min", s / 60);
	else if (s < 2 * 86400)
		snprintf(out, UNITS_BUF_LEN, "%lld h", s / 3600);
	else
		snprintf(out, UNITS_BUF_LEN, "%lld d", s / 86400);
}
