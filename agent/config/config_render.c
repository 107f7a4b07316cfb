/* The effective configuration as text: config_render() for 'config check'
 * and for the hash recorded in the audit log, config_describe() for the list
 * of keys. Both walk the key table in its order, so equal values give equal
 * text and comments or key order in the files change nothing. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "config_keys.h"
#include "units.h"

static FILE *render_open(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	if (!f) {
		fprintf(stderr, "mai: out of memory rendering the configuration\n");
		abort();
	}
	return f;
}

static char *render_close(FILE *f, char **buf)
{
	if (fclose(f) != 0) {
		fprintf(stderr, "mai: out of memory rendering the configuration\n");
		abort();
	}
	return *buf;
}

static void render_indent(FILE *f, unsigned indent)
{
	fprintf(f, "%*s", (int)indent, "");
}

/* Always double-quoted, so that no string can be read back as a number,
 * a boolean or YAML syntax. */
static void render_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void render_scalar(FILE *f, const struct yt_node *n)
{
	const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-";

	if (!n->quoted && !*n->value)
		fputc('~', f);
	else if (!n->quoted && n->value[strspn(n->value, safe)] == '\0' && n->value[0] != '-')
		fputs(n->value, f);
	else
		render_quoted(f, n->value);
}

/* A raw node after "key:" or "-": block style, "{}" and "[]" when empty. */
static void render_node(FILE *f, const struct yt_node *n, unsigned indent)
{
	if (n->kind == YT_SCALAR) {
		fputc(' ', f);
		render_scalar(f, n);
		fputc('\n', f);
		return;
	}
	if (n->n_items == 0) {
		fputs(n->kind == YT_MAPPING ? " {}\n" : " []\n", f);
		return;
	}
	fputc('\n', f);
	if (n->kind == YT_MAPPING) {
		for (size_t i = 0; i + 1 < n->n_items; i += 2) {
			render_indent(f, indent);
			render_scalar(f, n->items[i]);
			fputc(':', f);
			render_node(f, n->items[i + 1], indent + 2);
		}
		return;
	}
	for (size_t i = 0; i < n->n_items; i++) {
		render_indent(f, indent);
		fputc('-', f);
		render_node(f, n->items[i], indent + 2);
	}
}

static void render_cpus(uint64_t nano, char out[UNITS_BUF_LEN])
{
	int n = snprintf(out, UNITS_BUF_LEN, "%" PRIu64 ".%09" PRIu64, nano / 1000000000,
			 nano % 1000000000);
	while (n > 2 && out[n - 1] == '0' && out[n - 2] != '.')
		out[--n] = '\0';
}

static void render_value(FILE *f, const struct config_key *k, const void *field,
			 unsigned indent)
{
	char buf[UNITS_BUF_LEN];

	switch (k->type) {
	case CONFIG_STRING:
	case CONFIG_PATH:
		fputc(' ', f);
		render_quoted(f, *(char *const *)field);
		break;
	case CONFIG_BOOL:
		fputs(*(const bool *)field ? " true" : " false", f);
		break;
	case CONFIG_INT:
		if ((k->flags & CONFIG_F_AUTO) && *(const int64_t *)field == CONFIG_AUTO)
			fputs(" auto", f);
		else
			fprintf(f, " %" PRId64, *(const int64_t *)field);
		break;
	case CONFIG_SIZE:
		units_format_size(*(const uint64_t *)field, buf);
		fprintf(f, " %s", buf);
		break;
	case CONFIG_DURATION:
		units_format_duration(*(const uint64_t *)field, buf);
		fprintf(f, " %s", buf);
		break;
	case CONFIG_CPUS:
		render_cpus(*(const uint64_t *)field, buf);
		fprintf(f, " %s", buf);
		break;
	case CONFIG_ENUM:
		fprintf(f, " %s", k->values[*(const int *)field]);
		break;
	case CONFIG_STRING_LIST: {
		const struct config_strv *strv = field;
		if (strv->n == 0)
			fputs(" []", f);
		for (size_t i = 0; i < strv->n; i++) {
			fputc('\n', f);
			render_indent(f, indent);
			fputs("- ", f);
			render_quoted(f, strv->items[i]);
		}
		break;
	}
	case CONFIG_RAW:
		render_node(f, *(const struct yt_node *const *)field, indent);
		return; /* render_node ends its own line */
	}
	fputc('\n', f);
}

/* Number of leading dotted components that a and b share. */
static size_t render_common_sections(const char *a, const char *b)
{
	size_t common = 0;
	for (;;) {
		size_t na = strcspn(a, "."), nb = strcspn(b, ".");
		if (!a[na] || !b[nb] || na != nb || strncmp(a, b, na) != 0)
			return common;
		common++;
		a += na + 1;
		b += nb + 1;
	}
}

char *config_render(const struct mai_config *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = render_open(&buf, &len);
	const char *prev = NULL;
	int file = -1;

	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		const void *field = (const char *)cfg + k->offset;
		if ((int)k->file != file) {
			file = (int)k->file;
			prev = NULL;
			/* "agent.yaml" -> "agent:" */
			const char *name = config_file_name(k->file);
			fprintf(f, "%.*s:\n", (int)strcspn(name, "."), name);
		}
		size_t common = prev ? render_common_sections(prev, k->path) : 0;
		const char *p = k->path;
		size_t depth = 0;
		for (; depth < common; depth++)
			p += strcspn(p, ".") + 1;
		for (size_t n; p[n = strcspn(p, ".")]; p += n + 1, depth++) {
			render_indent(f, (unsigned)(2 + 2 * depth));
			fprintf(f, "%.*s:\n", (int)n, p);
		}
		render_indent(f, (unsigned)(2 + 2 * depth));
		fprintf(f, "%s:", p);
		render_value(f, k, field, (unsigned)(4 + 2 * depth));
		prev = k->path;
	}
	return render_close(f, &buf);
}

static void describe_range(FILE *f, const struct config_key *k)
{
	char lo[UNITS_BUF_LEN], hi[UNITS_BUF_LEN];

	switch (k->type) {
	case CONFIG_INT:
		fprintf(f, " %s%" PRId64 "..%" PRId64, k->flags & CONFIG_F_AUTO ? "auto or " : "",
			k->min, k->max);
		return;
	case CONFIG_SIZE:
		units_format_size((uint64_t)k->min, lo);
		units_format_size((uint64_t)k->max, hi);
		fprintf(f, " %s..%s", lo, hi);
		return;
	case CONFIG_DURATION:
		units_format_duration((uint64_t)k->min, lo);
		units_format_duration((uint64_t)k->max, hi);
		fprintf(f, " %s..%s", lo, hi);
		return;
	case CONFIG_CPUS:
		render_cpus((uint64_t)k->min, lo);
		render_cpus((uint64_t)k->max, hi);
		fprintf(f, " %s..%s", lo, hi);
		return;
	case CONFIG_ENUM:
		for (size_t i = 0; k->values[i]; i++)
			fprintf(f, "%c%s", i ? '|' : ' ', k->values[i]);
		return;
	default:
		return;
	}
}

char *config_describe(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = render_open(&buf, &len);
	int file = -1;

	for (size_t i = 0; i < config_keys_count; i++) {
		const struct config_key *k = &config_keys[i];
		if ((int)k->file != file) {
			file = (int)k->file;
			fprintf(f, "%s%s\n", i ? "\n" : "", config_file_name(k->file));
		}
		fprintf(f, "  %s (%s", k->path, config_type_to_string(k->type));
		describe_range(f, k);
		fprintf(f, ", default %s)\n      %s\n", k->def, k->help);
	}
	return render_close(f, &buf);
}
