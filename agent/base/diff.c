#include "diff.h"

#include <stdint.h>
#include <string.h>

/* One line: its bytes including the '\n' when there is one, so "x" at the end
 * of a file without a newline differs from "x\n", as in diff -u. */
struct diff_line {
	const char *p;
	size_t len;
	uint64_t hash;
};

struct diff_file {
	struct diff_line *lines;
	size_t n;
	bool *changed;      /* per line: deleted (old) or inserted (new) */
};

/* FNV-1a: lines are compared by hash first, bytes only when hashes agree. */
static uint64_t line_hash(const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void split_lines(const char *buf, size_t len, struct diff_file *f)
{
	size_t n = 0, cap = 0;

	f->lines = NULL;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			f->lines = xrealloc(f->lines, cap * sizeof(*f->lines));
		}
		f->lines[n].p = buf + i;
		f->lines[n].len = l;
		f->lines[n].hash = line_hash(buf + i, l);
		n++;
		i += l;
	}
	f->n = n;
	f->changed = xcalloc(n + 1, sizeof(bool));
}

static bool line_equal(const struct diff_line *a, const struct diff_line *b)
{
	return a->hash == b->hash && a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* Myers' greedy forward search on old[lo_a, hi_a) and new[lo_b, hi_b). Each
 * round d keeps its furthest-reaching x per diagonal (2d+1 values) so the
 * path can be walked back: (D+1)^2 integers, bounded through max_edits.
 * Returns false when the edit distance exceeds max_edits. */
static bool myers(struct diff_file *a, struct diff_file *b, size_t lo_a, size_t hi_a,
		  size_t lo_b, size_t hi_b, size_t max_edits)
{
	long n = (long)(hi_a - lo_a), m = (long)(hi_b - lo_b);
	long dmax = n + m;
	if ((size_t)dmax > max_edits)
		dmax = (long)max_edits;
	/* Grown round by round: a small change costs a small trace. */
	_cleanup_free_ long *trace = NULL;
	size_t trace_cap = 0;
	const struct diff_line *la = a->lines + lo_a, *lb = b->lines + lo_b;
	long found = -1;

	for (long d = 0; d <= dmax && found < 0; d++) {
		size_t need = (size_t)(d + 1) * (size_t)(d + 1);
		if (need > trace_cap) {
			size_t most = (size_t)(dmax + 1) * (size_t)(dmax + 1);
			trace_cap = need * 2 < most ? need * 2 : most;
			trace = xrealloc(trace, trace_cap * sizeof(long));
		}
		long *v = trace + d * d;                   /* index k + d */
		long *pv = d ? trace + (d - 1) * (d - 1) : NULL; /* index k + d - 1 */
		for (long k = -d; k <= d; k += 2) {
			long x;
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && pv[k - 1 + d - 1] < pv[k + 1 + d - 1]))
				x = pv[k + 1 + d - 1];         /* down: insertion */
			else
				x = pv[k - 1 + d - 1] + 1;     /* right: deletion */
			long y = x - k;
			while (x < n && y < m && line_equal(&la[x], &lb[y])) {
				x++;
				y++;
			}
			v[k + d] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
	}
	if (found < 0)
		return false;

	/* Walk back from (n, m): each round's choice of neighbour diagonal is
	 * recomputed from the previous round, exactly as the search made it. */
	long x = n, y = m;
	for (long d = found; d > 0; d--) {
		long *pv = trace + (d - 1) * (d - 1);
		long k = x - y, pk;
		if (k == -d || (k != d && pv[k - 1 + d - 1] < pv[k + 1 + d - 1]))
			pk = k + 1;
		else
			pk = k - 1;
		long px = pv[pk + d - 1], py = px - pk;
		if (pk == k + 1)
			b->changed[lo_b + (size_t)py] = true;  /* (px,py) -> (px,py+1) */
		else
			a->changed[lo_a + (size_t)px] = true;  /* (px,py) -> (px+1,py) */
		x = px;
		y = py;
	}
	return true;
}

/* Output buffer that refuses, rather than splits, a line past the cap. */
struct out_buf {
	char *p;
	size_t len, cap, max;
	bool truncated;
};

static bool out_put(struct out_buf *o, const char *s, size_t n)
{
	if (o->truncated)
		return false;
	if (o->max && o->len + n > o->max) {
		o->truncated = true;
		return false;
	}
	if (o->len + n + 1 > o->cap) {
		while (o->len + n + 1 > o->cap)
			o->cap = o->cap ? o->cap * 2 : 256;
		o->p = xrealloc(o->p, o->cap);
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
	return true;
}

/* One diff line: prefix, the line's bytes, and the marker when the line has
 * no newline. Kept whole so a truncated diff still ends on a line. */
static void out_line(struct out_buf *o, char prefix, const struct diff_line *l)
{
	static const char nonl[] = "\n\\ No newline at end of file\n";
	if (o->truncated)
		return;   /* keep counting lines, stop building text */
	bool has_nl = l->len && l->p[l->len - 1] == '\n';
	size_t n = 1 + l->len + (has_nl ? 0 : sizeof(nonl) - 1);
	_cleanup_free_ char *buf = xmalloc(n);

	buf[0] = prefix;
	memcpy(buf + 1, l->p, l->len);
	if (!has_nl)
		memcpy(buf + 1 + l->len, nonl, sizeof(nonl) - 1);
	out_put(o, buf, n);
}

/* diff -u's range: "start,count", "start" when count is 1, and the line
 * before the (empty) range with ",0" when count is 0. */
static void format_range(char *buf, size_t size, size_t start, size_t count)
{
	if (count == 0)
		snprintf(buf, size, "%zu,0", start);
	else if (count == 1)
		snprintf(buf, size, "%zu", start + 1);
	else
		snprintf(buf, size, "%zu,%zu", start + 1, count);
}

static void out_header(struct out_buf *o, const char *name)
{
	_cleanup_free_ char *clean = xstrdup(name ? name : "");
	for (char *c = clean; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	_cleanup_free_ char *h = xasprintf("--- a/%s\n+++ b/%s\n", clean, clean);
	out_put(o, h, strlen(h));
}

/* Walks both files in step. Common lines pair up one to one; a change is a
 * run of deleted old lines and inserted new lines. Changes closer than
 * 2*context+1 common lines share a hunk, as diff -u does. */
static void emit_hunks(const struct diff_file *a, const struct diff_file *b, unsigned ctx,
		       const char *name, struct out_buf *o, struct diff_result *res)
{
	size_t i = 0, j = 0;
	bool header = false;

	while (i < a->n || j < b->n) {
		/* Skip to the next change. */
		while (i < a->n && j < b->n && !a->changed[i] && !b->changed[j]) {
			i++;
			j++;
		}
		if (i >= a->n && j >= b->n)
			break;
		/* The hunk starts ctx common lines before this change. */
		size_t back = i < ctx ? i : ctx;
		if (j < back)
			back = j;
		size_t hs_a = i - back, hs_b = j - back;
		size_t he_a = i, he_b = j;  /* end of last change in the hunk */

		/* Extend over every change whose gap is at most 2*ctx lines. */
		for (;;) {
			while (he_a < a->n && a->changed[he_a])
				he_a++;
			while (he_b < b->n && b->changed[he_b])
				he_b++;
			size_t gap = 0;
			while (he_a + gap < a->n && he_b + gap < b->n &&
			       !a->changed[he_a + gap] && !b->changed[he_b + gap])
				gap++;
			bool more = he_a + gap < a->n || he_b + gap < b->n;
			if (more && gap <= 2 * (size_t)ctx) {
				he_a += gap;
				he_b += gap;
				continue;
			}
			size_t tail = gap < ctx ? gap : ctx;
			i = he_a + gap;
			j = he_b + gap;
			he_a += tail;
			he_b += tail;
			break;
		}

		res->hunks++;
		if (!header) {
			out_header(o, name);
			header = true;
		}
		char ra[48], rb[48];
		format_range(ra, sizeof(ra), hs_a, he_a - hs_a);
		format_range(rb, sizeof(rb), hs_b, he_b - hs_b);
		_cleanup_free_ char *h = xasprintf("@@ -%s +%s @@\n", ra, rb);
		out_put(o, h, strlen(h));

		size_t x = hs_a, y = hs_b;
		while (x < he_a || y < he_b) {
			if (x < he_a && y < he_b && !a->changed[x] && !b->changed[y]) {
				out_line(o, ' ', &a->lines[x]);
				x++;
				y++;
				continue;
			}
			while (x < he_a && a->changed[x]) {
				out_line(o, '-', &a->lines[x++]);
				res->lines_removed++;
			}
			while (y < he_b && b->changed[y]) {
				out_line(o, '+', &b->lines[y++]);
				res->lines_added++;
			}
		}
	}
}

void diff_options_init(struct diff_options *opts, const char *name)
{
	memset(opts, 0, sizeof(*opts));
	opts->name = name;
	opts->max_edits = DIFF_DEFAULT_MAX_EDITS;
	opts->context = DIFF_DEFAULT_CONTEXT;
}

void diff_unified(const char *old_buf, size_t old_len, const char *new_buf, size_t new_len,
		  const struct diff_options *opts, struct diff_result *out)
{
	struct diff_file a, b;
	struct out_buf o = { .max = opts->max_bytes };
	size_t max_edits = opts->max_edits ? opts->max_edits : DIFF_DEFAULT_MAX_EDITS;
	if (max_edits > DIFF_MAX_EDITS_LIMIT)
		max_edits = DIFF_MAX_EDITS_LIMIT;

	memset(out, 0, sizeof(*out));
	split_lines(old_len ? old_buf : "", old_len, &a);
	split_lines(new_len ? new_buf : "", new_len, &b);

	/* Common head and tail cost nothing to match and often are most of a
	 * script's next version; only the middle goes through Myers. */
	size_t pre = 0, suf = 0;
	while (pre < a.n && pre < b.n && line_equal(&a.lines[pre], &b.lines[pre]))
		pre++;
	while (suf < a.n - pre && suf < b.n - pre &&
	       line_equal(&a.lines[a.n - 1 - suf], &b.lines[b.n - 1 - suf]))
		suf++;

	if (!myers(&a, &b, pre, a.n - suf, pre, b.n - suf, max_edits)) {
		/* Too far apart: replace the whole middle. */
		out->capped = true;
		for (size_t i = pre; i < a.n - suf; i++)
			a.changed[i] = true;
		for (size_t j = pre; j < b.n - suf; j++)
			b.changed[j] = true;
	}
	emit_hunks(&a, &b, opts->context, opts->name, &o, out);

	out->text = o.p ? o.p : xstrdup("");
	out->len = o.len;
	out->truncated = o.truncated;
	free(a.lines);
	free(a.changed);
	free(b.lines);
	free(b.changed);
}

void diff_result_clear(struct diff_result *res)
{
	free(res->text);
	memset(res, 0, sizeof(*res));
}
