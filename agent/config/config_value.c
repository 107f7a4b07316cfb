/* One value of the configuration: checked against its key in the table
 * (type, range, units, paths) and stored; and the message, positioned, when
 * it is wrong (config_value.h). */
#include "config_value.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "log.h"
#include "units.h"

void config_fail(struct config_ctx *ctx, const char *file, unsigned line, unsigned col,
		 const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (ctx->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->err = xasprintf("%s:%u:%u: %s", file, line, col, msg);
}

/* A value quoted back in a message: short, on one line. */
void config_show(const char *value, char out[72])
{
	size_t n = 0;
	for (const char *p = value; *p && n < 64; p++)
		out[n++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
	if (strlen(value) > 64) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

void *config_field(struct mai_config *cfg, const struct config_key *k)
{
	return (char *)cfg + k->offset;
}

static void config_format_cpus(uint64_t nano, char out[UNITS_BUF_LEN])
{
	int n = snprintf(out, UNITS_BUF_LEN, "%llu.%09llu", (unsigned long long)(nano / 1000000000),
			 (unsigned long long)(nano % 1000000000));
	/* keep one decimal at least: 1.0, 0.5, 1.25 */
	while (n > 0 && out[n - 1] == '0' && out[n - 2] != '.')
		out[--n] = '\0';
}

/* The "expected ..." half of every message about key k. */
static void config_expected(const struct config_key *k, char *buf, size_t size)
{
	char lo[UNITS_BUF_LEN], hi[UNITS_BUF_LEN];
	size_t n;

	switch (k->type) {
	case CONFIG_STRING:
		/* check("") fails by design and names what a good value looks like */
		snprintf(buf, size, "expected %s", k->check ? k->check("") : "a string");
		return;
	case CONFIG_PATH:
		snprintf(buf, size, "expected %s", k->flags & CONFIG_F_RELATIVE ?
			 "a path, absolute or relative to agent.state_dir" : "an absolute path");
		return;
	case CONFIG_BOOL:
		snprintf(buf, size, "expected true or false");
		return;
	case CONFIG_INT:
		snprintf(buf, size, "expected %sa whole number from %lld to %lld",
			 k->flags & CONFIG_F_AUTO ? "auto or " : "", (long long)k->min, (long long)k->max);
		return;
	case CONFIG_SIZE:
		units_format_size((uint64_t)k->min, lo);
		units_format_size((uint64_t)k->max, hi);
		snprintf(buf, size, "expected a size from %s to %s, such as 512m, 64k, 1g or a "
			 "number of bytes", lo, hi);
		return;
	case CONFIG_DURATION:
		units_format_duration((uint64_t)k->min, lo);
		units_format_duration((uint64_t)k->max, hi);
		snprintf(buf, size, "expected a duration from %s to %s, such as 500ms, 120s, 2m "
			 "or 1h", lo, hi);
		return;
	case CONFIG_CPUS:
		config_format_cpus((uint64_t)k->min, lo);
		config_format_cpus((uint64_t)k->max, hi);
		snprintf(buf, size, "expected a number of CPUs from %s to %s, such as 1.0 or 0.5",
			 lo, hi);
		return;
	case CONFIG_ENUM:
		n = (size_t)snprintf(buf, size, "expected one of:");
		for (size_t i = 0; k->values[i] && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s %s", i ? "," : "", k->values[i]);
		return;
	case CONFIG_STRING_LIST:
		snprintf(buf, size, "expected a list of %s", k->check ? k->check("") : "strings");
		return;
	case CONFIG_RAW:
		snprintf(buf, size, "expected %s", k->flags & CONFIG_F_LIST ? "a list" : "a value");
		return;
	}
}

/* A lexically normalised path: no "//", "." or "..", no trailing "/". */
char *config_path_normalize(const char *path)
{
	size_t len = strlen(path);
	char *out = xmalloc(len + 2);
	size_t n = 0;
	int absolute = path[0] == '/';

	if (absolute)
		out[n++] = '/';
	for (const char *p = path; *p;) {
		size_t seg = strcspn(p, "/");
		if (seg == 0 || (seg == 1 && p[0] == '.')) {
			/* nothing */
		} else if (seg == 2 && p[0] == '.' && p[1] == '.') {
			size_t floor = absolute ? 1 : 0, last = n;
			while (last > floor && out[last - 1] != '/')
				last--;
			/* A relative path's leading ".." stays: "../.." is not ".". */
			bool up = n - last == 2 && out[last] == '.' && out[last + 1] == '.';
			if (n > floor && !up) {
				n = last > floor ? last - 1 : last;
			} else if (!absolute) {
				if (n)
					out[n++] = '/';
				memcpy(out + n, "..", 2);
				n += 2;
			}
		} else {
			if (n > (size_t)absolute)
				out[n++] = '/';
			memcpy(out + n, p, seg);
			n += seg;
		}
		p += seg;
		if (*p == '/')
			p++;
	}
	if (n == 0)
		out[n++] = '.';
	out[n] = '\0';
	return out;
}

int config_is_null(const struct yt_node *v)
{
	return v->kind == YT_SCALAR && !v->quoted &&
	       (!*v->value || strcmp(v->value, "~") == 0 || strcmp(v->value, "null") == 0 ||
		strcmp(v->value, "Null") == 0 || strcmp(v->value, "NULL") == 0);
}

static int config_parse_int(const char *s, int64_t *out)
{
	char *end = NULL;
	long long v;

	if (!*s || strspn(s, "-0123456789") != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end || end == s)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "1", "1.0", "0.25": at most nine decimals, as Docker's NanoCpus
 * (-EDOM: more). */
static int config_parse_cpus(const char *s, uint64_t *nano)
{
	uint64_t whole = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > 1000000)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++, digits++) {
			if (digits == 9)
				return p[strspn(p, "0123456789")] ? -EINVAL : -EDOM;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
	}
	if (*p)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*nano = whole * 1000000000ULL + frac;
	return 0;
}

static int config_set_string_list(struct config_ctx *ctx, const struct config_key *k,
				  const struct yt_node *v, const char *file, const char *expected)
{
	struct config_strv *strv = config_field(ctx->cfg, k);
	char shown[72];

	if (v->kind != YT_SEQUENCE) {
		config_fail(ctx, file, v->line, v->col, "%s: got %s; %s", k->path,
			    config_is_null(v) ? "no value" : yt_kind_to_string(v->kind), expected);
		return -EINVAL;
	}
	for (size_t i = 0; i < v->n_items; i++) {
		const struct yt_node *item = v->items[i];
		const char *why = NULL;
		if (item->kind != YT_SCALAR || config_is_null(item)) {
			config_fail(ctx, file, item->line, item->col, "%s: item %zu is %s; %s",
				    k->path, i + 1, item->kind == YT_SCALAR ? "empty" :
				    yt_kind_to_string(item->kind), expected);
			return -EINVAL;
		}
		if (k->check && (why = k->check(item->value))) {
			config_show(item->value, shown);
			config_fail(ctx, file, item->line, item->col, "%s: '%s' is not valid; %s",
				    k->path, shown, expected);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < strv->n; i++)
		free(strv->items[i]);
	free(strv->items);
	strv->items = xcalloc(v->n_items, sizeof(char *));
	strv->n = v->n_items;
	for (size_t i = 0; i < v->n_items; i++)
		strv->items[i] = xstrdup(v->items[i]->value);
	return 0;
}

static int config_check_range(struct config_ctx *ctx, const struct config_key *k,
			      const struct yt_node *v, const char *file, const char *expected,
			      int r, int64_t value)
{
	char shown[72];

	config_show(v->value, shown);
	if (r == -ERANGE || value < k->min || value > k->max) {
		config_fail(ctx, file, v->line, v->col, "%s: '%s' is out of range; %s", k->path,
			    shown, expected);
		return -EINVAL;
	}
	return 0;
}

/* Checks the node v against key k and stores it in the configuration. */
int config_apply(struct config_ctx *ctx, const struct config_key *k, const struct yt_node *v,
		 const char *file)
{
	void *field = config_field(ctx->cfg, k);
	char expected[512], shown[72];
	const char *why = NULL;
	enum units_error ue;
	uint64_t u = 0;
	int64_t i = 0;
	int r;

	config_expected(k, expected, sizeof(expected));
	if (k->type == CONFIG_RAW) {
		if ((k->flags & CONFIG_F_LIST) && v->kind != YT_SEQUENCE) {
			config_fail(ctx, file, v->line, v->col, "%s: got %s; %s", k->path,
				    config_is_null(v) ? "no value" : yt_kind_to_string(v->kind),
				    expected);
			return -EINVAL;
		}
		*(const struct yt_node **)field = v;
		return 0;
	}
	if (k->type == CONFIG_STRING_LIST)
		return config_set_string_list(ctx, k, v, file, expected);
	if (v->kind != YT_SCALAR || config_is_null(v)) {
		config_fail(ctx, file, v->line, v->col, "%s: got %s; %s", k->path,
			    v->kind == YT_SCALAR ? "no value" : yt_kind_to_string(v->kind), expected);
		return -EINVAL;
	}
	config_show(v->value, shown);
	if (v->quoted && (k->type == CONFIG_BOOL || k->type == CONFIG_INT)) {
		config_fail(ctx, file, v->line, v->col, "%s: \"%s\" is quoted text; %s (without "
			    "quotes)", k->path, shown, expected);
		return -EINVAL;
	}

	switch (k->type) {
	case CONFIG_STRING:
	case CONFIG_PATH:
		if (!*v->value && !(k->flags & CONFIG_F_EMPTY)) {
			config_fail(ctx, file, v->line, v->col, "%s: empty; %s", k->path, expected);
			return -EINVAL;
		}
		if (strpbrk(v->value, "\n\r\t")) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' holds a control "
				    "character; %s", k->path, shown, expected);
			return -EINVAL;
		}
		if (k->type == CONFIG_PATH && *v->value && v->value[0] != '/' &&
		    !(k->flags & CONFIG_F_RELATIVE)) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' is a relative path; %s",
				    k->path, shown, expected);
			return -EINVAL;
		}
		if (k->type == CONFIG_STRING && k->check && *v->value && (why = k->check(v->value))) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' is not valid; %s", k->path,
				    shown, expected);
			return -EINVAL;
		}
		free(*(char **)field);
		*(char **)field = k->type == CONFIG_PATH && *v->value ?
			config_path_normalize(v->value) : xstrdup(v->value);
		return 0;
	case CONFIG_BOOL:
		if (strcmp(v->value, "true") != 0 && strcmp(v->value, "false") != 0) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' is not a boolean; %s",
				    k->path, shown, expected);
			return -EINVAL;
		}
		*(bool *)field = strcmp(v->value, "true") == 0;
		return 0;
	case CONFIG_INT:
		if ((k->flags & CONFIG_F_AUTO) && strcmp(v->value, "auto") == 0) {
			*(int64_t *)field = CONFIG_AUTO;
			return 0;
		}
		r = config_parse_int(v->value, &i);
		if (r == -EINVAL) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' is not a whole number; %s",
				    k->path, shown, expected);
			return r;
		}
		if (config_check_range(ctx, k, v, file, expected, r, i) < 0)
			return -EINVAL;
		*(int64_t *)field = i;
		return 0;
	case CONFIG_SIZE:
	case CONFIG_DURATION:
		ue = k->type == CONFIG_SIZE ? units_parse_size(v->value, &u) :
			units_parse_duration(v->value, &u);
		if (ue != UNITS_OK && ue != UNITS_OVERFLOW) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' %s; %s", k->path, shown,
				    units_error_to_string(ue), expected);
			return -EINVAL;
		}
		if (config_check_range(ctx, k, v, file, expected, ue == UNITS_OVERFLOW ? -ERANGE : 0,
				       u > INT64_MAX ? INT64_MAX : (int64_t)u) < 0)
			return -EINVAL;
		*(uint64_t *)field = u;
		return 0;
	case CONFIG_CPUS:
		r = config_parse_cpus(v->value, &u);
		if (r == -EINVAL) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' is not a decimal number; %s",
				    k->path, shown, expected);
			return r;
		}
		if (r == -EDOM) {
			config_fail(ctx, file, v->line, v->col, "%s: '%s' has more than nine "
				    "decimals (Docker counts CPUs in billionths); %s", k->path, shown,
				    expected);
			return -EINVAL;
		}
		if (config_check_range(ctx, k, v, file, expected, r, (int64_t)u) < 0)
			return -EINVAL;
		*(uint64_t *)field = u;
		return 0;
	case CONFIG_ENUM:
		for (int e = 0; k->values[e]; e++) {
			if (strcmp(k->values[e], v->value) == 0) {
				*(int *)field = e;
				return 0;
			}
		}
		config_fail(ctx, file, v->line, v->col, "%s: '%s' is not a known choice; %s",
			    k->path, shown, expected);
		return -EINVAL;
	case CONFIG_STRING_LIST:
	case CONFIG_RAW:
		break;
	}
	return -EINVAL;
}
