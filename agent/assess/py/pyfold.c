/* Expressions: a small evaluator that folds constant strings (concatenation,
 * slicing, chr() sequences, "".join, % and .format of literals), follows
 * names through imports, getattr, __import__, globals() and sys.modules, and
 * reports every call it passes with its resolved name and arguments. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pyanalyze_int.h"



/* Python 3.11's builtins, in strcmp order (is_builtin searches them): with
 * a star import in the file, any other bare name may come from the
 * star-imported module. */
static const char *const builtin_names[] = {
	"__build_class__", "__import__", "abs", "aiter", "all", "anext", "any", "ascii", "bin",
	"bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile",
	"complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval",
	"exec", "exit", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr",
	"hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len",
	"license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct",
	"open", "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round",
	"set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type",
	"vars", "zip",
};

/* Binary search of the sorted table above: asked for most names. */
static int is_builtin(const char *s, size_t n)
{
	size_t lo = 0, hi = ARRAY_SIZE(builtin_names);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *b = builtin_names[mid];
		int c = strncmp(b, s, n);
		if (c == 0)
			c = b[n] != '\0';
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int is_keyword_value(const struct pytok *t)
{
	/* Asked of every name: most fail on the first letter. */
	switch (t->s[0]) {
	case 'T': return t->n == 4 && !memcmp(t->s, "True", 4);
	case 'F': return t->n == 5 && !memcmp(t->s, "False", 5);
	case 'N': return t->n == 4 && !memcmp(t->s, "None", 4);
	case 's': return t->n == 4 && !memcmp(t->s, "self", 4);
	case 'c': return t->n == 3 && !memcmp(t->s, "cls", 3);
	default: return 0;
	}
}

/* "a.b" without printf: names are joined for nearly every token. */
static char *dotted_join(const char *a, size_t an, const char *b, size_t bn)
{
	char *q = xmalloc(an + bn + 2);
	memcpy(q, a, an);
	q[an] = '.';
	memcpy(q + an + 1, b, bn);
	q[an + bn + 1] = '\0';
	return q;
}

/* The list of character codes a PYA_BIND_CODES binding keeps as text. */
static void codes_list(struct pya_val *out, const char *text)
{
	size_t n = 0, cap = 0;
	const unsigned char *p = (const unsigned char *)text;

	out->k = PYA_V_LIST;
	while (*p) {
		uint32_t cp = *p++;
		int more = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;
		cp &= more == 3 ? 0x07 : more == 2 ? 0x0f : more == 1 ? 0x1f : 0x7f;
		for (; more > 0 && (*p & 0xc0) == 0x80; more--)
			cp = cp << 6 | (*p++ & 0x3f);
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			out->items = xrealloc(out->items, cap * sizeof(*out->items));
		}
		out->items[n++] = (struct pya_val){ .k = PYA_V_NUM, .num = (long)cp };
	}
	out->n_items = n;
}

void pya_resolve_name(struct pya_ctx *c, const struct pytok *t, struct pya_val *out)
{
	const struct pya_binding *b = pya_scope_lookup(c->scope, t->s, t->n);
	/* A name that NFKC changed is spelled to be missed by a reader. */
	int hidden = t->owned || c->dynamic;

	pya_val_clear(out);
	if (is_keyword_value(t))
		return;
	if (b) {
		switch (b->kind) {
		case PYA_BIND_REF:
			pya_set_ref(out, xstrdup(b->s), b->dynamic || hidden);
			out->guess = b->guess;
			break;
		case PYA_BIND_CONST:
			pya_set_str(out, xstrdup(b->s));
			break;
		case PYA_BIND_NUM:
			out->k = PYA_V_NUM;
			out->num = b->num;
			break;
		case PYA_BIND_DECODED:
			out->k = PYA_V_DECODED;
			break;
		case PYA_BIND_CODES:
			codes_list(out, b->s);
			break;
		case PYA_BIND_NS:
			out->k = PYA_V_GLOBALS;
			out->s = xstrdup(b->s);
			out->ns_module = !!b->ns_module;
			break;
		case PYA_BIND_MODULES:
			out->k = PYA_V_MODULES;
			break;
		default:
			out->meth_tok = t; /* a local: its calls are reported by name */
			out->guess_local = 1;
			break;
		}
		out->taint = b->taint;
		return;
	}
	if (t->n == 12 && memcmp(t->s, "__builtins__", 12) == 0) {
		pya_set_ref(out, xstrdup("builtins"), hidden);
		return;
	}
	if (is_builtin(t->s, t->n)) {
		pya_set_ref(out, dotted_join("builtins", 8, t->s, t->n), hidden);
		return;
	}
	if (c->n_star) {
		pya_set_ref(out, dotted_join(c->star[c->n_star - 1], strlen(c->star[c->n_star - 1]), t->s, t->n), hidden);
		return;
	}
	/* Nobody bound it here: a module used without its import (it may
	 * come from exec'd text, a star import elsewhere or a later
	 * definition), taken as what it says when it is used as one (called
	 * or followed by an attribute). As a plain value it stays unresolved. */
	size_t at = (size_t)(t - c->t);
	if (at + 1 < c->n && c->t[at + 1].kind == PYT_OP && c->t[at + 1].n == 1 &&
	    (c->t[at + 1].s[0] == '.' || c->t[at + 1].s[0] == '(')) {
		pya_set_ref(out, xstrndup(t->s, t->n), hidden);
		out->guess = 1;
	}
}

/* Subscript or slice of a value; *i is after the '['. */
static void subscript(struct pya_ctx *c, size_t *i, struct pya_val *v, const struct pytok *at)
{
	struct pya_val idx[3] = { { 0 } };
	int parts = 0, colons = 0;

	while (*i < c->n && !c->bail && !pya_tok_is(c, *i, PYT_OP, "]")) {
		size_t before = *i;
		if (pya_tok_is(c, *i, PYT_OP, ":")) {
			colons++;
			parts = colons;
			(*i)++;
			continue;
		}
		struct pya_val x = { 0 };
		pya_expr(c, i, &x);
		if (colons < 3)
			pya_val_clear(&idx[colons]), idx[colons] = x;
		else
			pya_val_clear(&x);
		if (*i == before)
			(*i)++;
		else if (pya_tok_is(c, *i, PYT_OP, ","))
			(*i)++, colons = 9;
	}
	if (*i < c->n && !c->bail)
		(*i)++;
	(void)parts;
	struct pya_val r = { 0 };
	int of_builtins = pya_is_builtins_ns(v);
	if (colons == 0 && idx[0].k != PYA_V_STR && (of_builtins || v->k == PYA_V_GLOBALS)) {
		/* vars(builtins)[name], __builtins__.__dict__[name]: a builtin
		 * chosen at run time; globals()[name]: reported when called. */
		if (of_builtins)
			pya_computed_name(c, "computed-builtin", &idx[0], at);
		r.computed = 1;
	} else if (colons == 0 && idx[0].k == PYA_V_STR &&
	    (v->k == PYA_V_GLOBALS || v->k == PYA_V_MODULES ||
	     (v->k == PYA_V_REF && !strcmp(v->s, "builtins")))) {
		if (v->k == PYA_V_MODULES) {
			pya_set_ref(&r, xstrdup(idx[0].s), 1);
		} else {
			const struct pya_binding *b = v->k == PYA_V_GLOBALS && !strcmp(v->s, "builtins")
				? pya_scope_lookup(c->module, idx[0].s, strlen(idx[0].s)) : NULL;
			if (b && b->kind == PYA_BIND_REF)
				pya_set_ref(&r, xstrdup(b->s), 1);
			else
				pya_set_ref(&r, xasprintf("%s.%s", v->s, idx[0].s), 1);
		}
	} else if (v->k == PYA_V_STR && colons == 2 && idx[0].k == PYA_V_UNKNOWN &&
		   idx[1].k == PYA_V_UNKNOWN && idx[2].k == PYA_V_NUM && idx[2].num == -1) {
		pya_set_str(&r, pya_reverse_utf8(v->s));
	} else if (v->k == PYA_V_LIST && colons == 0 && idx[0].k == PYA_V_NUM && idx[0].num >= 0 &&
		   (size_t)idx[0].num < v->n_items) {
		pya_val_copy(&r, &v->items[idx[0].num]);
	}
	/* One variable of the environment is not all of it: os.environ["USER"]
	 * is the host's identity, os.environ["API_KEY"] the script's input. */
	unsigned taint = v->taint;
	if (colons == 0 && idx[0].k == PYA_V_STR && v->k == PYA_V_REF &&
	    (v->taint & PYA_TAINT_SECRET) && !strcmp(v->s, "os.environ"))
		taint = pya_env_taint(idx[0].s) | (v->taint & ~PYA_TAINT_SECRET);
	int home = taint != v->taint && pya_env_is_home(idx[0].s);
	for (int k = 0; k < 3; k++) {
		r.taint |= idx[k].taint;
		pya_val_clear(&idx[k]);
	}
	if (home) /* os.environ["HOME"]: the home directory, "~" */
		pya_set_str(&r, xstrdup("~"));
	if (v->k == PYA_V_DECODED && r.k == PYA_V_UNKNOWN)
		r.k = PYA_V_DECODED;
	r.taint |= taint;
	pya_val_clear(v);
	*v = r;
}

static void attribute(struct pya_ctx *c, const struct pytok *name, struct pya_val *v)
{
	/* __bases__ and __mro__ are everyday metaprogramming; these two are how
	 * sandbox escapes reach objects nobody imported. */
	if (pytok_is(name, PYT_NAME, "__subclasses__") || pytok_is(name, PYT_NAME, "__globals__")) {
		struct pya_event d = { .kind = PYA_SPECIAL, .name = "introspection", .dynamic = 1 };
		pya_emit(c, &d, name);
	}
	if (v->k == PYA_V_DECODED)
		return; /* methods of decoded data: still decoded data */
	if (v->k == PYA_V_REF) {
		if (pytok_is(name, PYT_NAME, "__dict__")) {
			/* What is taken out of it is marked hidden there. */
			v->k = PYA_V_GLOBALS;
			return;
		}
		/* The name grows in place: "os" -> "os.path" -> "os.path.join". */
		size_t an = strlen(v->s);
		char *q = xrealloc(v->s, an + name->n + 2);
		q[an] = '.';
		memcpy(q + an + 1, name->s, name->n);
		q[an + 1 + name->n] = '\0';
		v->s = q;
		v->dynamic |= name->owned;
		v->taint |= pya_ref_is_outside(q);
		long bits;
		if (!strcmp(q, "sys.modules")) {
			pya_val_clear(v);
			v->k = PYA_V_MODULES;
		} else if (q[0] == 's' && (bits = pya_stat_constant(q)) >= 0) {
			pya_val_clear(v);
			v->k = PYA_V_NUM;
			v->num = bits;
		}
		return;
	}
	if (v->k == PYA_V_PATH && !v->meth) {
		v->meth = xstrndup(name->s, name->n);
		return;
	}
	if (v->k == PYA_V_STR) {
		v->meth = xstrndup(name->s, name->n);
		v->k = PYA_V_STRMETH;
		return;
	}
	if ((v->k == PYA_V_GLOBALS || v->k == PYA_V_MODULES) && pytok_is(name, PYT_NAME, "get")) {
		v->meth = xstrdup("get");
		return;
	}
	unsigned taint = v->taint;
	pya_val_clear(v);
	v->taint = taint;
	v->meth_tok = name; /* an unnamed object's method: reported as ".name" */
}

static long parse_number(const struct pytok *t, int *ok)
{
	char buf[32];
	size_t o = 0;

	*ok = 0;
	if (t->n >= sizeof(buf))
		return 0;
	for (size_t k = 0; k < t->n; k++)
		if (t->s[k] != '_')
			buf[o++] = t->s[k];
	buf[o] = '\0';
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 0);
	if (buf[0] == '0' && (buf[1] == 'o' || buf[1] == 'O'))
		v = strtol(buf + 2, &end, 8);
	else if (buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
		v = strtol(buf + 2, &end, 2);
	/* A literal past a long's range is left unknown, not clamped. */
	*ok = *end == '\0' && errno != ERANGE;
	return v;
}

/* A display: "(...)", "[...]" or "{...}"; *i is at the opening bracket. */
static void display(struct pya_ctx *c, size_t *i, struct pya_val *v, const char *close)
{
	struct pya_val list = { .k = PYA_V_LIST };
	int known = close[0] != '}', single = close[0] == ')', commas = 0;
	unsigned outside = 0;

	(*i)++;
	while (*i < c->n && !c->bail && !pya_tok_is(c, *i, PYT_OP, close)) {
		size_t before = *i;
		struct pya_val x = { 0 };
		if (pya_tok_is(c, *i, PYT_OP, "*") || pya_tok_is(c, *i, PYT_OP, "**"))
			(*i)++, known = 0;
		pya_expr(c, i, &x);
		outside |= x.taint;
		if (pya_val_decoded(&x)) {
			list.k = PYA_V_LIST;
			known = 2;
		}
		if (known == 1) {
			list.items = xrealloc(list.items, (list.n_items + 1) * sizeof(*list.items));
			list.items[list.n_items++] = x;
		} else if (known == 2) {
			/* Keep one decoded item so the taint survives the display. */
			if (!list.n_items) {
				list.items = xcalloc(1, sizeof(*list.items));
				list.n_items = 1;
			}
			pya_val_clear(&list.items[0]);
			list.items[0].k = PYA_V_DECODED;
			pya_val_clear(&x);
		} else {
			pya_val_clear(&x);
		}
		if (pya_tok_is(c, *i, PYT_OP, ",")) {
			commas++;
			(*i)++;
		} else if (*i < c->n && !pya_tok_is(c, *i, PYT_OP, close)) {
			/* Comprehension, slice or dict parts: the value is not known. */
			if (known == 1)
				known = 0;
			if (*i == before || c->t[*i].kind == PYT_OP || c->t[*i].kind == PYT_NAME)
				(*i)++;
		}
	}
	if (*i < c->n && !c->bail)
		(*i)++;
	if (single && commas == 0 && list.n_items == 1 && known == 1) {
		*v = list.items[0];
		free(list.items);
		return;
	}
	if (known)
		*v = list;
	else
		pya_val_clear(&list);
	v->taint = outside;
}

static void atom(struct pya_ctx *c, size_t *i, struct pya_val *v)
{
	if (*i >= c->n || c->bail)
		return; /* "a +" at the end of a statement */
	const struct pytok *t = &c->t[*i];

	if (t->kind == PYT_NAME) {
		(*i)++;
		if (pytok_is(t, PYT_NAME, "lambda")) {
			while (*i < c->n && !pya_tok_is(c, *i, PYT_OP, ":"))
				(*i)++;
			if (*i < c->n)
				(*i)++;
			struct pya_val x = { 0 };
			pya_expr(c, i, &x);
			pya_val_clear(&x);
			return;
		}
		pya_resolve_name(c, t, v);
		return;
	}
	if (t->kind == PYT_NUMBER) {
		int ok;
		(*i)++;
		v->num = parse_number(t, &ok);
		v->k = ok ? PYA_V_NUM : PYA_V_UNKNOWN;
		return;
	}
	if (t->kind == PYT_STRING || t->kind == PYT_FSTRING_START) {
		/* Adjacent literals concatenate; an f-string makes the whole unknown. */
		size_t total = 0, start = *i;
		int known = 1;
		unsigned outside = 0;
		while (*i < c->n && (c->t[*i].kind == PYT_STRING || c->t[*i].kind == PYT_FSTRING_START)) {
			if (c->t[*i].kind == PYT_STRING) {
				total += c->t[*i].n;
				(*i)++;
				continue;
			}
			known = 0;
			(*i)++;
			while (*i < c->n && !c->bail && c->t[*i].kind != PYT_FSTRING_END) {
				size_t before = *i;
				struct pya_val x = { 0 };
				pya_expr(c, i, &x);
				outside |= x.taint;
				pya_val_clear(&x);
				if (*i == before)
					(*i)++;
			}
			if (*i < c->n && !c->bail)
				(*i)++;
		}
		v->taint = outside;
		if (!known || c->bail)
			return;
		char *s = xmalloc(total + 1);
		size_t o = 0;
		for (size_t k = start; k < *i; k++) {
			memcpy(s + o, c->t[k].s, c->t[k].n);
			o += c->t[k].n;
		}
		s[o] = '\0';
		pya_set_str(v, s);
		if ((s[0] == '/' || s[0] == '~' || (s[0] && s[1] == ':')) && pya_names_system_path(s))
			v->taint |= PYA_TAINT_SYSTEM;
		struct pya_event ev = { .kind = PYA_STRING, .name = s };
		pya_emit(c, &ev, t);
		return;
	}
	if (pytok_is(t, PYT_OP, "("))
		return display(c, i, v, ")");
	if (pytok_is(t, PYT_OP, "["))
		return display(c, i, v, "]");
	if (pytok_is(t, PYT_OP, "{"))
		return display(c, i, v, "}");
}

static void postfix(struct pya_ctx *c, size_t *i, struct pya_val *v)
{
	while (*i < c->n && !c->bail) {
		const struct pytok *t = &c->t[*i];
		if (pytok_is(t, PYT_OP, ".") && *i + 1 < c->n && c->t[*i + 1].kind == PYT_NAME) {
			attribute(c, &c->t[*i + 1], v);
			*i += 2;
		} else if (pytok_is(t, PYT_OP, "(")) {
			pya_call(c, i, v, *i > 0 ? &c->t[*i - 1] : t);
		} else if (pytok_is(t, PYT_OP, "[")) {
			(*i)++;
			subscript(c, i, v, t);
		} else {
			return;
		}
	}
}

/* Is t a prefix of an operand: not, -, +, ~ (and first in an expression
 * also await and the * of an unpacking)? */
static int prefix_op(const struct pytok *t, int first)
{
	if (t->kind == PYT_OP)
		return t->n == 1 && (t->s[0] == '-' || t->s[0] == '+' || t->s[0] == '~' ||
				     (first && t->s[0] == '*'));
	return t->kind == PYT_NAME && ((t->n == 3 && !memcmp(t->s, "not", 3)) ||
				       (first && t->n == 5 && !memcmp(t->s, "await", 5)));
}

/* Is t a binary (or conditional) operator? Asked after every operand:
 * decided by length and first byte instead of a walk over a table. */
static int binary_op(const struct pytok *t)
{
	/* 1: an operator alone, 2: doubled (//, **, <<, >>), 4: before '='
	 * (==, !=, <=, >=, :=). */
	static const unsigned char op_class[256] = {
		['+'] = 1, ['-'] = 1, ['*'] = 3, ['/'] = 3, ['%'] = 1, ['|'] = 1, ['&'] = 1,
		['^'] = 1, ['<'] = 7, ['>'] = 7, ['@'] = 1, ['='] = 4, ['!'] = 4, [':'] = 4,
	};
	const char *s = t->s;

	if (t->kind == PYT_OP) {
		unsigned char k = op_class[(unsigned char)s[0]];
		if (t->n == 1)
			return k & 1;
		return t->n == 2 && (((k & 2) && s[1] == s[0]) || ((k & 4) && s[1] == '='));
	}
	if (t->kind != PYT_NAME)
		return 0;
	switch (t->n) {
	case 2:
		return (s[0] == 'o' && s[1] == 'r') || (s[0] == 'i' && strchr("nsf", s[1]));
	case 3:
		return !memcmp(s, "and", 3) || !memcmp(s, "not", 3);
	case 4:
		return !memcmp(s, "else", 4);
	default:
		return 0;
	}
}

static int is_select_op(const struct pytok *op)
{
	return op->kind == PYT_NAME && (pytok_is(op, PYT_NAME, "or") || pytok_is(op, PYT_NAME, "and") ||
					pytok_is(op, PYT_NAME, "if") || pytok_is(op, PYT_NAME, "else"));
}

static void combine(struct pya_val *l, const struct pytok *op, struct pya_val *r)
{
	char *s = NULL;
	unsigned outside = l->taint | r->taint;
	long n;

	if (pytok_is(op, PYT_OP, "+") && l->k == PYA_V_STR && r->k == PYA_V_STR)
		s = xasprintf("%s%s", l->s, r->s);
	else if (l->k == PYA_V_NUM && r->k == PYA_V_NUM && pytok_is(op, PYT_OP, "+") &&
		 !__builtin_add_overflow(l->num, r->num, &n))
		l->num = n;
	else if (l->k == PYA_V_NUM && r->k == PYA_V_NUM && pytok_is(op, PYT_OP, "-") &&
		 !__builtin_sub_overflow(l->num, r->num, &n))
		l->num = n;
	else if (l->k == PYA_V_NUM && r->k == PYA_V_NUM && pytok_is(op, PYT_OP, "|"))
		l->num |= r->num;
	else if (l->k == PYA_V_NUM && r->k == PYA_V_NUM && pytok_is(op, PYT_OP, "&"))
		l->num &= r->num;
	else if (l->k == PYA_V_NUM && r->k == PYA_V_NUM && pytok_is(op, PYT_OP, "^"))
		l->num ^= r->num;
	else if (pytok_is(op, PYT_OP, "%") && l->k == PYA_V_STR)
		s = pya_percent_str(l->s, r);
	else if (pytok_is(op, PYT_OP, "*") && l->k == PYA_V_STR && r->k == PYA_V_NUM &&
		 r->num >= 0 && r->num <= 64 && strlen(l->s) * (size_t)r->num < 4096) {
		size_t k = strlen(l->s);
		s = xmalloc(k * (size_t)r->num + 1);
		for (long j = 0; j < r->num; j++)
			memcpy(s + k * (size_t)j, l->s, k);
		s[k * (size_t)r->num] = '\0';
	} else if (is_select_op(op) && (l->k == PYA_V_REF || r->k == PYA_V_REF)) {
		/* "a or b", "a if c else b": either may be the value; a name
		 * reached in a hidden way is the one that matters. */
		if (r->k == PYA_V_REF && (l->k != PYA_V_REF || (r->dynamic && !l->dynamic))) {
			pya_val_clear(l);
			*l = *r;
			*r = (struct pya_val){ 0 };
		}
	} else if (l->k == PYA_V_NUM && r->k == PYA_V_NUM) {
		l->k = PYA_V_UNKNOWN;
	} else {
		int decoded = pya_val_decoded(l) || pya_val_decoded(r);
		pya_val_clear(l);
		l->k = decoded ? PYA_V_DECODED : PYA_V_UNKNOWN;
	}
	if (s)
		pya_set_str(l, s);
	l->taint = outside;
}

void pya_expr(struct pya_ctx *c, size_t *i, struct pya_val *out)
{
	pya_val_clear(out);
	if (*i >= c->n || c->bail)
		return;
	if (c->depth >= PYA_MAX_DEPTH) {
		/* Too deep: every level returns where it is, and the statement
		 * loop resumes here at depth 0, so each token is still seen. */
		c->bail = 1;
		return;
	}
	c->depth++;
	int negate = 0;
	while (*i < c->n && prefix_op(&c->t[*i], 1)) {
		negate ^= pya_tok_is(c, *i, PYT_OP, "-");
		(*i)++;
	}
	atom(c, i, out);
	postfix(c, i, out);
	if (negate && out->k == PYA_V_NUM && out->num != LONG_MIN)
		out->num = -out->num;
	else if (negate)
		pya_val_clear(out);
	/* Operators have no precedence here: in "f if x > 1 else g" the
	 * comparison would lose f. A name reached in a hidden way is kept
	 * aside and is the value of a chain with or, and, if or else. */
	struct pya_val pick = { 0 };
	int select = 0;
	while (*i < c->n && !c->bail && binary_op(&c->t[*i])) {
		const struct pytok *op = &c->t[*i];
		struct pya_val r = { 0 };
		(*i)++;
		if (pytok_is(op, PYT_NAME, "not") || pytok_is(op, PYT_NAME, "is"))
			if (pya_tok_is(c, *i, PYT_NAME, "in") || pya_tok_is(c, *i, PYT_NAME, "not"))
				(*i)++;
		/* One level deeper per operator keeps long chains iterative. */
		int neg = 0;
		while (*i < c->n && prefix_op(&c->t[*i], 0)) {
			neg ^= pya_tok_is(c, *i, PYT_OP, "-");
			(*i)++;
		}
		atom(c, i, &r);
		postfix(c, i, &r);
		if (neg && r.k == PYA_V_NUM && r.num != LONG_MIN)
			r.num = -r.num;
		else if (neg)
			pya_val_clear(&r);
		select |= is_select_op(op);
		if (pick.k == PYA_V_UNKNOWN && out->k == PYA_V_REF && out->dynamic)
			pya_val_copy(&pick, out);
		if (pick.k == PYA_V_UNKNOWN && r.k == PYA_V_REF && r.dynamic)
			pya_val_copy(&pick, &r);
		combine(out, op, &r);
		pya_val_clear(&r);
	}
	if (select && pick.k == PYA_V_REF && !(out->k == PYA_V_REF && out->dynamic)) {
		pya_val_clear(out);
		*out = pick;
	} else {
		pya_val_clear(&pick);
	}
	c->depth--;
}
