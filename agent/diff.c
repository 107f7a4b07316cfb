#include "diff.h"

#include <stdint.h>
#include <string.h>

#include "macro.h"

#define CONTEXT 3

struct lines {
	const char **start;
	size_t *len;
	uint64_t *hash; /* compared first, so that equal-length lines rarely hit memcmp */
	size_t n;
};

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = UINT64_C(1469598103934665603);
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * UINT64_C(1099511628211);
	return h;
}

static void split(const char *text, size_t len, struct lines *l)
{
	size_t cap = 16;
	l->n = 0;
	l->start = xmalloc(cap * sizeof(*l->start));
	l->len = xmalloc(cap * sizeof(*l->len));
	l->hash = xmalloc(cap * sizeof(*l->hash));
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) + 1 : len;
		if (l->n == cap) {
			cap *= 2;
			l->start = xrealloc(l->start, cap * sizeof(*l->start));
			l->len = xrealloc(l->len, cap * sizeof(*l->len));
			l->hash = xrealloc(l->hash, cap * sizeof(*l->hash));
		}
		l->start[l->n] = text + pos;
		l->len[l->n] = end - pos;
		l->hash[l->n] = fnv1a(text + pos, end - pos);
		l->n++;
		pos = end;
	}
}

static void lines_free(struct lines *l)
{
	free(l->start);
	free(l->len);
	free(l->hash);
}

static int same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->hash[i] == b->hash[j] && a->len[i] == b->len[j] && memcmp(a->start[i], b->start[j], a->len[i]) == 0;
}

enum op_kind { OP_EQUAL, OP_DELETE, OP_INSERT };

struct op {
	enum op_kind kind;
	size_t a, b; /* line in old (EQUAL, DELETE) and in new (EQUAL, INSERT) */
};

/* Myers' greedy forward pass, keeping each round's frontier for the walk
 * back. Returns the ops in order, or NULL when the distance exceeds the cap. */
static struct op *myers(const struct lines *a, const struct lines *b, size_t *nops)
{
	long n = (long)a->n, m = (long)b->n, max = n + m;
	long limit = max < DIFF_MAX_EDITS ? max : DIFF_MAX_EDITS;
	long off = limit + 1;
	long *v = xcalloc((size_t)(2 * off + 1), sizeof(long));
	long **trace = xcalloc((size_t)limit + 1, sizeof(long *));
	long d, found = -1;
	for (d = 0; d <= limit && found < 0; d++) {
		trace[d] = xmalloc((size_t)(2 * off + 1) * sizeof(long));
		memcpy(trace[d], v, (size_t)(2 * off + 1) * sizeof(long));
		for (long k = -d; k <= d; k += 2) {
			long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
											  : v[off + k - 1] + 1;
			long y = x - k;
			while (x < n && y < m && same(a, (size_t)x, b, (size_t)y)) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
	}
	struct op *ops = NULL;
	if (found >= 0) {
		ops = xmalloc((size_t)(n + m + 1) * sizeof(*ops));
		size_t count = 0;
		long x = n, y = m;
		for (long dd = found; dd >= 0; dd--) {
			long *pv = trace[dd], k = x - y;
			long pk = (k == -dd || (k != dd && pv[off + k - 1] < pv[off + k + 1])) ? k + 1 : k - 1;
			long px = pv[off + pk], py = px - pk;
			while (x > px && y > py) {
				ops[count++] = (struct op){ OP_EQUAL, (size_t)(x - 1), (size_t)(y - 1) };
				x--;
				y--;
			}
			if (dd > 0) {
				if (px == x)
					ops[count++] = (struct op){ OP_INSERT, (size_t)x, (size_t)(y - 1) };
				else
					ops[count++] = (struct op){ OP_DELETE, (size_t)(x - 1), (size_t)y };
			}
			x = px;
			y = py;
		}
		for (size_t i = 0; i < count / 2; i++) {
			struct op t = ops[i];
			ops[i] = ops[count - 1 - i];
			ops[count - 1 - i] = t;
		}
		*nops = count;
	}
	for (long i = 0; i < d && i <= limit; i++)
		free(trace[i]);
	free(trace);
	free(v);
	return ops;
}

/* Every line deleted then every line inserted. */
static struct op *replace_all(const struct lines *a, const struct lines *b, size_t *nops)
{
	struct op *ops = xmalloc((a->n + b->n + 1) * sizeof(*ops));
	size_t c = 0;
	for (size_t i = 0; i < a->n; i++)
		ops[c++] = (struct op){ OP_DELETE, i, 0 };
	for (size_t j = 0; j < b->n; j++)
		ops[c++] = (struct op){ OP_INSERT, a->n, j };
	*nops = c;
	return ops;
}

struct out {
	char *buf;
	size_t len, cap, max;
	int truncated;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->truncated)
		return;
	if (o->len + n > o->max) {
		o->truncated = 1;
		return;
	}
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->buf = xrealloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void put_line(struct out *o, char mark, const struct lines *l, size_t i)
{
	size_t n = l->len[i];
	int nl = n > 0 && l->start[i][n - 1] == '\n';
	_cleanup_free_ char *s = xmalloc(n + 40);
	s[0] = mark;
	memcpy(s + 1, l->start[i], n);
	size_t total = n + 1;
	if (!nl) {
		static const char tail[] = "\n\\ No newline at end of file\n";
		memcpy(s + total, tail, sizeof(tail) - 1);
		total += sizeof(tail) - 1;
	}
	put(o, s, total);
}

static char *range(char sign, size_t start, size_t count)
{
	/* GNU diff: an empty range names the line before it. */
	return count == 1 ? xasprintf("%c%zu", sign, start + 1)
			  : xasprintf("%c%zu,%zu", sign, count ? start + 1 : start, count);
}

char *diff_unified(const char *name, const char *old, size_t old_len, const char *new_text, size_t new_len,
		   size_t max, int *truncated)
{
	struct lines a, b;
	split(old, old_len, &a);
	split(new_text, new_len, &b);
	size_t nops = 0;
	struct op *ops = myers(&a, &b, &nops);
	if (!ops)
		ops = replace_all(&a, &b, &nops);
	struct out o = { .buf = xstrdup(""), .cap = 1, .max = max };
	int changed = 0;
	for (size_t i = 0; i < nops; i++)
		changed |= ops[i].kind != OP_EQUAL;
	if (changed) {
		_cleanup_free_ char *hdr = xasprintf("--- a/%s\n+++ b/%s\n", name, name);
		put(&o, hdr, strlen(hdr));
	}
	size_t i = 0;
	while (changed && i < nops) {
		while (i < nops && ops[i].kind == OP_EQUAL)
			i++;
		if (i == nops)
			break;
		/* A hunk: context before, then changes until CONTEXT*2 equal lines in a row. */
		size_t first = i >= CONTEXT ? i - CONTEXT : 0, last = i;
		for (size_t j = i; j < nops; j++) {
			if (ops[j].kind != OP_EQUAL) {
				last = j;
				continue;
			}
			if (j - last > 2 * CONTEXT)
				break;
		}
		size_t end = last + CONTEXT + 1 < nops ? last + CONTEXT + 1 : nops;
		size_t a0 = ops[first].a, b0 = ops[first].b, ac = 0, bc = 0;
		for (size_t j = first; j < end; j++) {
			ac += ops[j].kind != OP_INSERT;
			bc += ops[j].kind != OP_DELETE;
		}
		_cleanup_free_ char *ra = range('-', a0, ac), *rb = range('+', b0, bc);
		_cleanup_free_ char *hunk = xasprintf("@@ %s %s @@\n", ra, rb);
		put(&o, hunk, strlen(hunk));
		for (size_t j = first; j < end; j++) {
			if (ops[j].kind == OP_EQUAL)
				put_line(&o, ' ', &a, ops[j].a);
			else if (ops[j].kind == OP_DELETE)
				put_line(&o, '-', &a, ops[j].a);
			else
				put_line(&o, '+', &b, ops[j].b);
		}
		i = end;
	}
	free(ops);
	lines_free(&a);
	lines_free(&b);
	*truncated = o.truncated;
	return o.buf;
}
