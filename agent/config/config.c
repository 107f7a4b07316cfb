/* Loading the configuration: defaults from the key table, then each file's
 * tree walked against the table, then the checks that span keys. The first
 * problem stops the load with one message that names file, line, column,
 * what is wrong and what is expected. */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "config_keys.h"
#include "hash.h"
#include "log.h"
#include "units.h"

/* Where a key got its value; file is NULL while the key has its default. */
struct config_pos {
	const char *file;
	unsigned line, col;
};

struct config_ctx {
	struct mai_config *cfg;
	struct config_pos *pos; /* one per key of the table */
	char *err;
};

static void config_fail(struct config_ctx *ctx, const char *file, unsigned line, unsigned col,
			const char *fmt, ...) _printf_(5, 6);

static void config_fail(struct config_ctx *ctx, const char *file, unsigned line, unsigned col,
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
static void config_show(const char *value, char out[72])
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

static void *config_field(struct mai_config *cfg, const struct config_key *k)
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
static char *config_path_normalize(const char *path)
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
			size_t floor = absolute ? 1 : 0;
			if (n > floor) {
				while (n > floor && out[n - 1] != '/')
					n--;
				if (n > floor)
					n--;
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

static int config_is_null(const struct yt_node *v)
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

/* "1", "1.0", "0.25": at most nine decimals, as Docker's NanoCpus. */
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
				return -EINVAL;
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
static int config_apply(struct config_ctx *ctx, const struct config_key *k,
			const struct yt_node *v, const char *file)
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

static const struct config_key *config_find(enum config_file f, const char *path, size_t *idx)
{
	for (size_t i = 0; i < config_keys_count; i++) {
		if (config_keys[i].file == f && strcmp(config_keys[i].path, path) == 0) {
			if (idx)
				*idx = i;
			return &config_keys[i];
		}
	}
	return NULL;
}

/* The names directly under section (e.g. "docker": "socket, api_timeout, ...")
 * or NULL when section is not one. Caller frees. */
static char *config_section_children(enum config_file f, const char *section)
{
	size_t len = strlen(section);
	char *list = NULL, *last = NULL;

	for (size_t i = 0; i < config_keys_count; i++) {
		const char *p = config_keys[i].path;
		if (config_keys[i].file != f || strncmp(p, section, len) != 0 || p[len] != '.')
			continue;
		p += len + 1;
		size_t n = strcspn(p, ".");
		if (last && strlen(last) == n && strncmp(last, p, n) == 0)
			continue;
		free(last);
		last = xstrndup(p, n);
		char *grown = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", last);
		free(list);
		list = grown;
	}
	free(last);
	return list;
}

static size_t config_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof(size_t));

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

static const char *config_closest(enum config_file f, const char *path)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	for (size_t i = 0; i < config_keys_count; i++) {
		if (config_keys[i].file != f)
			continue;
		size_t d = config_distance(path, config_keys[i].path);
		if (d < best_d) {
			best_d = d;
			best = config_keys[i].path;
		}
	}
	return best;
}

static int config_walk(struct config_ctx *ctx, enum config_file f, const char *file,
		       const struct yt_node *map, const char *prefix)
{
	for (size_t i = 0; i + 1 < map->n_items; i += 2) {
		const struct yt_node *key = map->items[i], *v = map->items[i + 1];
		_cleanup_free_ char *path = NULL, *children = NULL;
		char shown[72];
		size_t idx = 0;
		int r;

		config_show(key->value, shown);
		if (strchr(key->value, '.')) {
			config_fail(ctx, file, key->line, key->col, "key '%s' holds a '.'; expected "
				    "nested keys, each on its own indented line", shown);
			return -EINVAL;
		}
		path = prefix ? xasprintf("%s.%s", prefix, key->value) : xstrdup(key->value);
		const struct config_key *k = config_find(f, path, &idx);
		if (k) {
			r = config_apply(ctx, k, v, file);
			if (r < 0)
				return r;
			ctx->pos[idx] = (struct config_pos){ file, v->line, v->col };
			continue;
		}
		children = config_section_children(f, path);
		if (!children) {
			config_show(path, shown);
			config_fail(ctx, file, key->line, key->col, "unknown key '%s'; expected a key "
				    "of %s: did you mean '%s'?", shown, config_file_name(f),
				    config_closest(f, path));
			return -EINVAL;
		}
		if (v->kind != YT_MAPPING) {
			config_fail(ctx, file, v->line, v->col, "%s: got %s; expected a mapping with "
				    "the keys %s", path, config_is_null(v) ? "no value" :
				    yt_kind_to_string(v->kind), children);
			return -EINVAL;
		}
		r = config_walk(ctx, f, file, v, path);
		if (r < 0)
			return r;
	}
	return 0;
}

static void config_own(struct mai_config *cfg, struct yt_node *tree)
{
	if (!tree)
		return;
	cfg->owned = xrealloc(cfg->owned, (cfg->n_owned + 1) * sizeof(*cfg->owned));
	cfg->owned[cfg->n_owned++] = tree;
}

static int config_apply_defaults(struct config_ctx *ctx)
{
	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		_cleanup_free_ char *name = xasprintf("default of %s", k->path);
		struct yt_node *tree = NULL;
		int r = yt_parse_buffer(name, k->def, strlen(k->def), &tree, &ctx->err);
		if (r == 0 && !tree)
			r = -EINVAL;
		if (r == 0)
			r = config_apply(ctx, k, tree, name);
		if (k->type == CONFIG_RAW)
			config_own(ctx->cfg, tree);
		else
			yt_free(tree);
		if (r < 0)
			return r; /* a bug in the table; the test suite loads the defaults */
	}
	return 0;
}

static int config_load_file(struct config_ctx *ctx, const char *dir, enum config_file f,
			    const char **file_out)
{
	char *path = xasprintf("%s/%s", dir, config_file_name(f));
	struct yt_node *root = NULL;
	int r;

	/* the path lives as long as the context: positions point to it */
	*file_out = path;
	r = yt_parse_file(path, &root, &ctx->err);
	if (r == -ENOENT) {
		free(ctx->err);
		ctx->err = NULL;
		log_info("%s not found: using the defaults of every key in it", path);
		return 0;
	}
	if (r < 0)
		return r;
	config_own(ctx->cfg, root);
	if (!root)
		return 0;
	if (root->kind != YT_MAPPING) {
		config_fail(ctx, path, root->line, root->col, "the file holds %s; expected a "
			    "mapping of keys such as '%s: ...'", yt_kind_to_string(root->kind),
			    config_closest(f, ""));
		return -EINVAL;
	}
	return config_walk(ctx, f, path, root, NULL);
}

static const struct config_pos *config_pos_of(struct config_ctx *ctx, enum config_file f,
					      const char *path)
{
	static const struct config_pos none = { "(defaults)", 0, 0 };
	size_t idx = 0;

	if (config_find(f, path, &idx) && ctx->pos[idx].file)
		return &ctx->pos[idx];
	return &none;
}

/* The position of the first of two keys that the file sets, for errors
 * about how two values relate. */
static const struct config_pos *config_pos_either(struct config_ctx *ctx, enum config_file f,
						  const char *first, const char *second)
{
	const struct config_pos *p = config_pos_of(ctx, f, first);
	return p->file && p->line ? p : config_pos_of(ctx, f, second);
}

static int config_check_thresholds(struct config_ctx *ctx)
{
	const struct config_security *s = &ctx->cfg->security;
	const struct config_pos *p;

	if (s->thresholds.medium >= s->thresholds.high) {
		p = config_pos_either(ctx, CONFIG_FILE_SECURITY, "thresholds.high", "thresholds.medium");
		config_fail(ctx, p->file, p->line, p->col, "thresholds: high (%lld) is not above "
			    "medium (%lld); expected medium < high < blocked",
			    (long long)s->thresholds.high, (long long)s->thresholds.medium);
		return -EINVAL;
	}
	if (s->thresholds.high >= s->thresholds.blocked) {
		p = config_pos_either(ctx, CONFIG_FILE_SECURITY, "thresholds.blocked", "thresholds.high");
		config_fail(ctx, p->file, p->line, p->col, "thresholds: blocked (%lld) is not above "
			    "high (%lld); expected medium < high < blocked",
			    (long long)s->thresholds.blocked, (long long)s->thresholds.high);
		return -EINVAL;
	}
	return 0;
}

static char *config_join(const char *dir, const char *path)
{
	_cleanup_free_ char *joined = path[0] == '/' ? xstrdup(path) :
		xasprintf("%s/%s", dir, path);
	return config_path_normalize(joined);
}

static int config_path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Relative audit paths resolve against agent.state_dir; the signing key must
 * stay out of the log directory, which is published through the view. */
static int config_resolve_audit(struct config_ctx *ctx)
{
	struct mai_config *cfg = ctx->cfg;
	struct config_audit *a = &cfg->audit;
	char *resolved = config_join(cfg->agent.state_dir, a->log_dir);
	const struct config_pos *p;

	free(a->log_dir);
	a->log_dir = resolved;
	resolved = *a->public_key ? config_join(cfg->agent.state_dir, a->public_key) :
		config_join(a->log_dir, "audit.pub");
	free(a->public_key);
	a->public_key = resolved;

	if (config_path_is_under(a->signing_key, a->log_dir)) {
		p = config_pos_either(ctx, CONFIG_FILE_AUDIT, "signing_key", "log_dir");
		if (!p->line)
			p = config_pos_of(ctx, CONFIG_FILE_AGENT, "state_dir");
		config_fail(ctx, p->file, p->line, p->col, "signing_key: %s is inside log_dir %s; "
			    "expected a key outside the audit log directory, which is published",
			    a->signing_key, a->log_dir);
		return -EINVAL;
	}
	if (strcmp(a->signing_key, a->public_key) == 0) {
		p = config_pos_either(ctx, CONFIG_FILE_AUDIT, "public_key", "signing_key");
		config_fail(ctx, p->file, p->line, p->col, "public_key: %s is the signing key; "
			    "expected a different file for the public key", a->public_key);
		return -EINVAL;
	}
	return 0;
}

int config_load(const char *dir, struct mai_config **out, char **err)
{
	struct config_ctx ctx = { 0 };
	const char *files[CONFIG_FILE_COUNT] = { 0 };
	int r;

	ctx.cfg = xcalloc(1, sizeof(*ctx.cfg));
	ctx.pos = xcalloc(config_keys_count, sizeof(*ctx.pos));
	r = config_apply_defaults(&ctx);
	for (int f = 0; r == 0 && f < CONFIG_FILE_COUNT; f++)
		r = config_load_file(&ctx, dir, (enum config_file)f, &files[f]);
	if (r == 0)
		r = config_check_thresholds(&ctx);
	if (r == 0)
		r = config_resolve_audit(&ctx);
	if (r == 0) {
		_cleanup_free_ char *text = config_render(ctx.cfg);
		hash_sha256_hex(text, strlen(text), ctx.cfg->sha256);
	}
	for (int f = 0; f < CONFIG_FILE_COUNT; f++)
		free((char *)files[f]);
	free(ctx.pos);
	if (r < 0) {
		config_free(ctx.cfg);
		*err = ctx.err ? ctx.err : xasprintf("%s: cannot load the configuration; expected "
						     "readable YAML files", dir);
		return r;
	}
	*out = ctx.cfg;
	return 0;
}

void config_free(struct mai_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		void *field = config_field(cfg, k);
		if (k->type == CONFIG_STRING || k->type == CONFIG_PATH) {
			free(*(char **)field);
		} else if (k->type == CONFIG_STRING_LIST) {
			struct config_strv *strv = field;
			for (size_t j = 0; j < strv->n; j++)
				free(strv->items[j]);
			free(strv->items);
		}
	}
	for (size_t i = 0; i < cfg->n_owned; i++)
		yt_free(cfg->owned[i]);
	free(cfg->owned);
	free(cfg);
}

static void analyzer_copy(struct config_analyzer *dst, const struct config_analyzer *src)
{
	*dst = *src;
	dst->path = src->path ? xstrdup(src->path) : NULL;
	dst->rules = src->rules ? xstrdup(src->rules) : NULL;
}

void config_analyzers_copy(struct config_analyzers *dst, const struct config_analyzers *src)
{
	analyzer_copy(&dst->bandit, &src->bandit);
	analyzer_copy(&dst->semgrep, &src->semgrep);
}

void config_analyzers_clear(struct config_analyzers *a)
{
	free(a->bandit.path);
	free(a->bandit.rules);
	free(a->semgrep.path);
	free(a->semgrep.rules);
	memset(a, 0, sizeof(*a));
}

int config_dir_resolve(const char *arg, char **dir, char **err)
{
	const char *env = getenv(CONFIG_DIR_ENV);
	const char *d, *how;
	struct stat st;

	if (arg) {
		d = arg;
		how = "--config-dir";
	} else if (env && *env) {
		d = env;
		how = CONFIG_DIR_ENV;
	} else {
		*dir = xstrdup(CONFIG_DEFAULT_DIR);
		return 0;
	}
	int e = stat(d, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (e) {
		*err = xasprintf("%s: configuration directory (from %s): %s; expected a directory "
				 "holding agent.yaml, security.yaml, sandbox.yaml, audit.yaml",
				 d, how, strerror(e));
		return -e;
	}
	*dir = xstrdup(d);
	return 0;
}
