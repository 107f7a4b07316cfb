/* The rules indexed by what an event can match, so that an event meets only
 * the few rules that may apply instead of every rule: most call events name
 * nothing any rule mentions, and string events concern no rule at all.
 *
 * Call patterns (the `call:` lists) are of three shapes, told apart as
 * glob_one() in assess_rules.c tells them apart: an exact name, a prefix
 * ("os.exec*") and a real glob. Exact names are keys of one map; prefixes
 * whose fixed part holds a '.' are keys of another by their head (the text
 * before the first '.'), since a name starting with the prefix has that
 * same head; other patterns are tried for every call. The rules found are
 * then checked in full by assess_rule_matches(), in rule order. */
#include <stdint.h>
#include <string.h>

#include "assess_rules.h"
#include "strmap.h"

/* Longer heads are not indexed: their patterns are tried for every call. */
#define HEAD_MAX 64

struct idx_list {
	size_t *v;
	size_t n, cap;
};

struct assess_rule_index {
	struct idx_list imports, specials, strings; /* rules with such patterns */
	struct strmap *exact;   /* full name -> struct idx_list of rules */
	struct strmap *by_head; /* head of a prefix -> struct idx_list */
	struct strmap *by_method; /* NAME of "*.NAME" -> struct idx_list */
	struct idx_list always; /* rules with call patterns of no key */
	struct idx_list any_kw; /* "*" in rules that need a keyword (shell=...) */
	int dot_exact;          /* some exact pattern is ".NAME" */
	uint64_t method_bits;   /* method_bit() of every key of by_method */
	size_t string_max;      /* the longest text a `string:` names */
	unsigned char string_first[32]; /* bitmap of their first bytes */
};

/* A one-word filter in front of by_method: most calls are methods no rule
 * names, and this answers "none" for nearly all of them without hashing. */
static uint64_t method_bit(const char *name)
{
	return pya_method_bit(name, strlen(name));
}

void assess_rules_filter(const struct assess_rules *rules, struct pya_filter *f)
{
	const struct assess_rule_index *x = rules->index;

	/* ".NAME" events meet "*.NAME" (by_method), ".NAME" exact patterns,
	 * "*" with a keyword (any_kw) and the other globs (always). */
	f->method_bits = x->method_bits;
	if (x->dot_exact || x->always.n)
		f->method_bits = ~0ULL;
	f->keyword_calls = x->any_kw.n > 0;
}

/* Appends rule i; rules come in order, so a list stays sorted and unique. */
static void list_add(struct idx_list *l, size_t i)
{
	if (l->n && l->v[l->n - 1] == i)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = i;
}

static void list_free(void *p)
{
	struct idx_list *l = p;
	if (l)
		free(l->v);
	free(l);
}

static void map_add(struct strmap *m, const char *key, size_t i)
{
	struct idx_list *l = strmap_get(m, key);
	if (!l) {
		l = xcalloc(1, sizeof(*l));
		strmap_put(m, key, l);
	}
	list_add(l, i);
}

static void index_call_pattern(struct assess_rule_index *x, const struct assess_rule *r,
			       const char *pat, size_t i)
{
	const char *star = strchr(pat, '*');

	/* Every call, but only those with keywords can match. */
	if (!strcmp(pat, "*") && (r->kwarg || r->kwarg_true.n || r->has_kwarg.n)) {
		list_add(&x->any_kw, i);
		return;
	}
	/* "*.NAME": a method of any object, keyed by NAME. */
	if (pat[0] == '*' && pat[1] == '.' && pat[2] && pat[2 + strcspn(pat + 2, "*?[.")] == '\0') {
		map_add(x->by_method, pat + 2, i);
		x->method_bits |= method_bit(pat + 2);
		return;
	}
	if (strpbrk(pat, "?[") || (star && star[1] != '\0')) {
		list_add(&x->always, i);
		return;
	}
	if (!star) {
		map_add(x->exact, pat, i);
		x->dot_exact |= pat[0] == '.';
		return;
	}
	const char *dot = memchr(pat, '.', (size_t)(star - pat));
	if (!dot || dot - pat >= HEAD_MAX) {
		list_add(&x->always, i);
		return;
	}
	char head[HEAD_MAX];
	memcpy(head, pat, (size_t)(dot - pat));
	head[dot - pat] = '\0';
	map_add(x->by_head, head, i);
}

void assess_rules_index_free(struct assess_rules *rules)
{
	struct assess_rule_index *x = rules->index;

	if (!x)
		return;
	free(x->imports.v);
	free(x->specials.v);
	free(x->strings.v);
	free(x->always.v);
	free(x->any_kw.v);
	strmap_free(x->exact);
	strmap_free(x->by_head);
	strmap_free(x->by_method);
	free(x);
	rules->index = NULL;
}

void assess_rules_index_build(struct assess_rules *rules)
{
	struct assess_rule_index *x = xcalloc(1, sizeof(*x));

	assess_rules_index_free(rules);
	x->exact = strmap_new(list_free);
	x->by_head = strmap_new(list_free);
	x->by_method = strmap_new(list_free);
	for (size_t i = 0; i < rules->n; i++) {
		const struct assess_rule *r = &rules->r[i];
		if (r->import.n)
			list_add(&x->imports, i);
		if (r->special.n)
			list_add(&x->specials, i);
		if (r->string.n)
			list_add(&x->strings, i);
		for (size_t k = 0; k < r->string.n; k++) {
			unsigned char c0 = (unsigned char)r->string.v[k][0];
			x->string_first[c0 / 8] |= (unsigned char)(1u << (c0 % 8));
			if (strlen(r->string.v[k]) > x->string_max)
				x->string_max = strlen(r->string.v[k]);
		}
		for (size_t k = 0; k < r->call.n; k++)
			index_call_pattern(x, r, r->call.v[k], i);
	}
	rules->index = x;
}

static void each_in(const struct assess_rules *rules, const struct idx_list *l,
		    const struct pya_event *ev, assess_match_fn fn, void *ctx)
{
	for (size_t k = 0; k < l->n; k++) {
		const struct assess_rule *r = &rules->r[l->v[k]];
		if (assess_rule_matches(r, ev))
			fn(ctx, r, ev);
	}
}

void assess_rules_each_match(const struct assess_rules *rules, const struct pya_event *ev,
			     assess_match_fn fn, void *ctx)
{
	const struct assess_rule_index *x = rules->index;
	static const struct idx_list none;

	if (ev->kind == PYA_IMPORT)
		return each_in(rules, &x->imports, ev, fn, ctx);
	if (ev->kind == PYA_SPECIAL)
		return each_in(rules, &x->specials, ev, fn, ctx);
	if (ev->kind == PYA_STRING) {
		/* Every string constant of a file comes here: most are told
		 * apart by their first byte or their length. */
		unsigned char c0 = (unsigned char)ev->name[0];
		if (x->strings.n && (x->string_first[c0 / 8] & (1u << (c0 % 8))) &&
		    strnlen(ev->name, x->string_max + 1) <= x->string_max)
			each_in(rules, &x->strings, ev, fn, ctx);
		return;
	}
	if (ev->kind != PYA_CALL)
		return;
	/* The candidates: four sorted lists, merged in rule order. */
	/* ".NAME", a method of an object nobody can name, has no head, and
	 * only a rule's own ".NAME" names it exactly. */
	const struct idx_list *exact = NULL, *head = NULL, *meth = NULL;
	if (ev->name[0] != '.' || x->dot_exact)
		exact = strmap_get(x->exact, ev->name);
	const char *dot = strchr(ev->name, '.');
	size_t hn = dot ? (size_t)(dot - ev->name) : strlen(ev->name);
	if (hn > 0 && hn < HEAD_MAX) {
		char key[HEAD_MAX];
		memcpy(key, ev->name, hn);
		key[hn] = '\0';
		head = strmap_get(x->by_head, key);
	}
	if (dot) {
		const char *m = strrchr(ev->name, '.') + 1;
		if (x->method_bits & method_bit(m))
			meth = strmap_get(x->by_method, m);
	}
	const struct idx_list *lists[5] = { exact ? exact : &none, head ? head : &none,
					    meth ? meth : &none, &x->always,
					    ev->n_kwargs ? &x->any_kw : &none };
	size_t at[5] = { 0 };
	const struct idx_list *only = NULL;
	int nonempty = 0;
	for (int k = 0; k < 5; k++)
		if (lists[k]->n)
			nonempty++, only = lists[k];
	if (nonempty <= 1) {
		/* Most calls: no candidate, or one list of them in order. */
		if (only)
			each_in(rules, only, ev, fn, ctx);
		return;
	}
	for (;;) {
		size_t next = (size_t)-1;
		for (int k = 0; k < 5; k++)
			if (at[k] < lists[k]->n && lists[k]->v[at[k]] < next)
				next = lists[k]->v[at[k]];
		if (next == (size_t)-1)
			break;
		for (int k = 0; k < 5; k++)
			if (at[k] < lists[k]->n && lists[k]->v[at[k]] == next)
				at[k]++;
		const struct assess_rule *r = &rules->r[next];
		if (assess_rule_matches(r, ev))
			fn(ctx, r, ev);
	}
}
