#include "pep723.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"

struct line {
	const char *s;
	size_t len; /* without the line break (and a CR before it) */
};

/* The line starting at *pos; advances *pos past its line break. */
static bool next_line(const char *src, size_t len, size_t *pos, struct line *l)
{
	const char *nl;

	if (*pos >= len)
		return false;
	l->s = src + *pos;
	nl = memchr(l->s, '\n', len - *pos);
	l->len = nl ? (size_t)(nl - l->s) : len - *pos;
	*pos += l->len + (nl ? 1 : 0);
	if (l->len && l->s[l->len - 1] == '\r')
		l->len--;
	return true;
}

static bool line_is(const struct line *l, const char *text)
{
	return l->len == strlen(text) && memcmp(l->s, text, l->len) == 0;
}

/* "#" alone or "# " and anything: a line the block's content may hold. */
static bool content_line(const struct line *l)
{
	return (l->len == 1 && l->s[0] == '#') || (l->len >= 2 && l->s[0] == '#' && l->s[1] == ' ');
}

/* "# /// TYPE" with TYPE of [A-Za-z0-9-]+; *type points into the line. */
static bool opening_line(const struct line *l, const char **type, size_t *type_len)
{
	if (l->len <= 6 || memcmp(l->s, "# /// ", 6) != 0)
		return false;
	for (size_t i = 6; i < l->len; i++)
		if (!isalnum((unsigned char)l->s[i]) && l->s[i] != '-')
			return false;
	*type = l->s + 6;
	*type_len = l->len - 6;
	return true;
}

int pep723_locate(const char *src, size_t len, char **toml, size_t *line, char **err)
{
	size_t pos = 0, lineno = 0, found_line = 0;
	char *found = NULL;
	struct line l;

	*toml = NULL;
	while (next_line(src, len, &pos, &l)) {
		const char *type;
		size_t type_len, open_line = ++lineno;
		if (!opening_line(&l, &type, &type_len))
			continue;
		/* The run of comment lines after the opening; the block ends at
		 * the last "# ///" of the run. */
		size_t run_start = pos, close_end = 0, close_lines = 0, n = 0, p = pos;
		struct line c;
		while (next_line(src, len, &p, &c) && content_line(&c)) {
			n++;
			if (line_is(&c, "# ///")) {
				close_end = p;
				close_lines = n;
			}
		}
		bool script = type_len == 6 && memcmp(type, "script", 6) == 0;
		if (!close_lines) {
			if (!script)
				continue;
			free(found);
			*err = xasprintf("line %zu: the PEP 723 block '# /// script' has no closing "
					 "'# ///' line; end the block with a line that is exactly "
					 "'# ///'", open_line);
			return -EINVAL;
		}
		if (script && found) {
			free(found);
			*err = xasprintf("line %zu: a second PEP 723 '# /// script' block (the first "
					 "is at line %zu); a script may have only one",
					 open_line, found_line);
			return -EINVAL;
		}
		if (script) {
			char *buf = NULL;
			size_t blen = 0, q = run_start;
			FILE *f = open_memstream(&buf, &blen);
			if (!f)
				abort();
			for (size_t i = 0; i + 1 < close_lines && next_line(src, len, &q, &c); i++) {
				size_t skip = c.len >= 2 ? 2 : 1;
				fwrite(c.s + skip, 1, c.len - skip, f);
				fputc('\n', f);
			}
			if (fclose(f) != 0)
				abort();
			found = buf;
			found_line = open_line;
		}
		/* Scanning goes on after the block (its lines are counted). */
		for (size_t q = run_start; q < close_end;) {
			next_line(src, len, &q, &c);
			lineno++;
		}
		pos = close_end;
	}
	if (!found)
		return -ENOENT;
	*toml = found;
	*line = found_line;
	return 0;
}

static const char *requirement_problem(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PEP723_MAX_REQUIREMENT)
		return "is empty or longer than 256 characters";
	if (!isalnum((unsigned char)s[0]))
		return "does not start with a letter or digit (a package name)";
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return "has a control character";
	return NULL;
}

void pep723_strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

int pep723_dependencies(json_t *table, char ***deps, size_t *n, char **err)
{
	json_t *a = json_is_object(table) ? json_object_get(table, "dependencies") : NULL, *v;
	size_t i;

	*deps = NULL;
	*n = 0;
	if (!json_is_object(table)) {
		*err = xstrdup("the PEP 723 block is not a TOML table");
		return -EINVAL;
	}
	if (!a)
		return 0;
	if (!json_is_array(a)) {
		*err = xstrdup("'dependencies' in the PEP 723 block is not an array of strings");
		return -EINVAL;
	}
	if (json_array_size(a) > PEP723_MAX_DEPENDENCIES) {
		*err = xasprintf("the PEP 723 block lists %zu dependencies; at most %d are "
				 "installed", json_array_size(a), PEP723_MAX_DEPENDENCIES);
		return -EINVAL;
	}
	char **out = xcalloc(json_array_size(a) + 1, sizeof(char *));
	json_array_foreach(a, i, v) {
		const char *why = json_is_string(v) ? requirement_problem(json_string_value(v))
						    : "is not a string";
		if (why) {
			*err = xasprintf("dependency %zu in the PEP 723 block %s; write PEP 508 "
					 "requirements such as \"requests>=2\"", i + 1, why);
			pep723_strv_free(out);
			return -EINVAL;
		}
		out[i] = xstrdup(json_string_value(v));
	}
	*deps = out;
	*n = json_array_size(a);
	return 0;
}
