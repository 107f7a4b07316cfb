/* Expressions: a small evaluator that folds constant strings (concatenation,
 * slicing, chr() sequences, "".join, % and .format of literals), follows
 * names through imports, getattr, __import__, globals() and sys.modules, and
 * reports every call it passes with its resolved name and arguments. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pyanalyze_int.h"


static void set_str(struct pya_val *v, char *s)
{
	pya_val_clear(v);
	v->k = PYA_V_STR;
	v->s = s;
}

static void set_ref(struct pya_val *v, char *s, int dynamic)
{
	pya_val_clear(v);
	v->k = PYA_V_REF;
	v->s = s;
	v->dynamic = dynamic;
}

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
	return pytok_is(t, PYT_NAME, "True") || pytok_is(t, PYT_NAME, "False") ||
	       pytok_is(t, PYT_NAME, "None") || pytok_is(t, PYT_NAME, "self") ||
	       pytok_is(t, PYT_NAME, "cls");
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
			set_ref(out, xstrdup(b->s), b->dynamic || hidden);
			return;
		case PYA_BIND_CONST:
			set_str(out, xstrdup(b->s));
			return;
		case PYA_BIND_DECODED:
			out->k = PYA_V_DECODED;
			return;
		default:
			return;
		}
	}
	if (t->n == 12 && memcmp(t->s, "__builtins__", 12) == 0) {
		set_ref(out, xstrdup("builtins"), hidden);
		return;
	}
	if (is_builtin(t->s, t->n)) {
		set_ref(out, dotted_join("builtins", 8, t->s, t->n), hidden);
		return;
	}
	if (c->n_star)
		set_ref(out, dotted_join(c->star[c->n_star - 1], strlen(c->star[c->n_star - 1]), t->s, t->n), hidden);
}

static int is_decoder(const char *q)
{
	static const char *const names[] = {
		"base64.", "binascii.a2b", "binascii.unhexlify", "zlib.decompress",
		"codecs.decode", "builtins.bytes.fromhex", "builtins.bytearray.fromhex", "marshal.loads",
		"lzma.decompress", "bz2.decompress", "gzip.decompress", "codecs.encode",
	};
	if (!strchr("bzcmlg", q[0]))
		return 0; /* the first letters of the names below: most calls stop here */
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i][0] == q[0] && strncmp(q, names[i], strlen(names[i])) == 0)
			return strcmp(q, "base64.b64encode") != 0;
	return 0;
}

static int is_exec(const char *q)
{
	return strcmp(q, "builtins.exec") == 0 || strcmp(q, "builtins.eval") == 0 ||
	       strcmp(q, "builtins.compile") == 0;
}

static int val_decoded(const struct pya_val *v)
{
	if (v->k == PYA_V_DECODED)
		return 1;
	for (size_t i = 0; i < v->n_items; i++)
		if (val_decoded(&v->items[i]))
			return 1;
	return 0;
}

#define MAX_ARGS 4
#define MAX_KWARGS 8

struct call_args {
	struct pya_val pos[MAX_ARGS];
	int n_pos;
	struct pya_kwarg kw[MAX_KWARGS];
	char *kw_store[MAX_KWARGS * 2];
	size_t n_kw;
	int decoded;
};

static void args_clear(struct call_args *a)
{
	for (int i = 0; i < MAX_ARGS; i++)
		pya_val_clear(&a->pos[i]);
	for (size_t i = 0; i < a->n_kw * 2; i++)
		free(a->kw_store[i]);
}

static char *val_text(const struct pya_val *v)
{
	if (v->k == PYA_V_STR)
		return xstrdup(v->s);
	if (v->k == PYA_V_NUM)
		return xasprintf("%ld", v->num);
	return NULL;
}

/* Parses "(...)" arguments; *i is at the '('. */
static void parse_args(struct pya_ctx *c, size_t *i, struct call_args *a)
{
	(*i)++;
	while (*i < c->n && !c->bail && !pya_tok_is(c, *i, PYT_OP, ")")) {
		size_t before = *i;
		struct pya_val v = { 0 };
		const struct pytok *kwname = NULL;
		if (c->t[*i].kind == PYT_NAME && pya_tok_is(c, *i + 1, PYT_OP, "=")) {
			kwname = &c->t[*i];
			*i += 2;
		} else if (pya_tok_is(c, *i, PYT_OP, "*") || pya_tok_is(c, *i, PYT_OP, "**")) {
			(*i)++;
		}
		size_t vstart = *i;
		pya_expr(c, i, &v);
		if (val_decoded(&v))
			a->decoded = 1;
		if (kwname && a->n_kw < MAX_KWARGS) {
			char *name = xstrndup(kwname->s, kwname->n);
			char *value = val_text(&v);
			const struct pytok *vt = &c->t[vstart];
			if (!value && v.k == PYA_V_REF)
				value = xstrdup(strncmp(v.s, "builtins.", 9) == 0 ? v.s + 9 : v.s);
			else if (!value && *i == vstart + 1 && vt->kind == PYT_NAME &&
				 (pytok_is(vt, PYT_NAME, "True") || pytok_is(vt, PYT_NAME, "False") ||
				  pytok_is(vt, PYT_NAME, "None")))
				value = xstrndup(vt->s, vt->n);
			a->kw_store[a->n_kw * 2] = name;
			a->kw_store[a->n_kw * 2 + 1] = value;
			a->kw[a->n_kw].name = name;
			a->kw[a->n_kw].value = value;
			a->n_kw++;
		} else if (!kwname && a->n_pos < MAX_ARGS) {
			a->pos[a->n_pos++] = v;
			memset(&v, 0, sizeof(v));
		} else if (!kwname) {
			a->n_pos++;
		}
		pya_val_clear(&v);
		/* Separators and comprehension keywords between argument parts. */
		if (*i < c->n && (pya_tok_is(c, *i, PYT_OP, ",") || pya_tok_is(c, *i, PYT_NAME, "for") ||
				  pya_tok_is(c, *i, PYT_NAME, "in") || pya_tok_is(c, *i, PYT_NAME, "if") ||
				  pya_tok_is(c, *i, PYT_NAME, "async")))
			(*i)++;
		else if (*i == before)
			(*i)++;
	}
	if (*i < c->n && !c->bail)
		(*i)++;
}

static void call_ref(struct pya_ctx *c, const struct pytok *at, struct pya_val *f,
		     struct call_args *a)
{
	const char *q = f->s;
	const struct pya_val *a0 = a->n_pos > 0 ? &a->pos[0] : NULL;
	const struct pya_val *a1 = a->n_pos > 1 ? &a->pos[1] : NULL;
	struct pya_event ev = { .kind = PYA_CALL, .name = q, .dynamic = f->dynamic,
				.decoded_arg = a->decoded, .n_args = a->n_pos,
				.kwargs = a->kw, .n_kwargs = a->n_kw };
	char *mode = NULL;

	if (a0 && a0->k == PYA_V_STR)
		ev.arg0 = a0->s;
	if (a0 && a0->k == PYA_V_REF)
		ev.arg0_ref = a0->s;
	if (a1 && a1->k == PYA_V_STR)
		ev.mode = a1->s;
	for (size_t k = 0; k < a->n_kw; k++)
		if (strcmp(a->kw[k].name, "mode") == 0)
			ev.mode = a->kw[k].value;
	pya_emit(c, &ev, at);
	free(mode);

	struct pya_val r = { 0 };
	if (is_exec(q)) {
		if (a->decoded) {
			struct pya_event d = { .kind = PYA_SPECIAL, .name = "decode-exec", .dynamic = 1 };
			pya_emit(c, &d, at);
		}
		if (a0 && a0->k == PYA_V_STR)
			pya_analyze_text(c, a0->s, strlen(a0->s), at);
	} else if (is_decoder(q)) {
		r.k = PYA_V_DECODED;
	} else if (!strcmp(q, "builtins.__import__") || !strcmp(q, "importlib.import_module") ||
		   !strcmp(q, "importlib.__import__")) {
		if (a0 && a0->k == PYA_V_STR) {
			struct pya_event im = { .kind = PYA_IMPORT, .name = a0->s, .dynamic = 1 };
			pya_emit(c, &im, at);
			set_ref(&r, xstrdup(a0->s), 1);
		} else {
			struct pya_event d = { .kind = PYA_SPECIAL, .name = "dynamic-import", .dynamic = 1 };
			pya_emit(c, &d, at);
		}
	} else if (!strcmp(q, "builtins.getattr") && a0 && a1) {
		if (a0->k == PYA_V_REF && a1->k != PYA_V_STR) {
			struct pya_event d = { .kind = PYA_SPECIAL, .name = "dynamic-attribute",
					       .dynamic = 1 };
			pya_emit(c, &d, at);
		}
		if (a1->k == PYA_V_STR && a0->k == PYA_V_REF)
			set_ref(&r, xasprintf("%s.%s", a0->s, a1->s), 1);
		else if (a1->k == PYA_V_STR && a0->k == PYA_V_GLOBALS)
			set_ref(&r, xasprintf("%s.%s", a0->s, a1->s), 1);
	} else if (!strcmp(q, "builtins.setattr") && a0 && a0->k == PYA_V_REF &&
		   !strcmp(a0->s, "builtins")) {
		struct pya_event d = { .kind = PYA_SPECIAL, .name = "builtins-modified", .dynamic = 1 };
		pya_emit(c, &d, at);
	} else if (!strcmp(q, "builtins.globals") || !strcmp(q, "builtins.locals") ||
		   (!strcmp(q, "builtins.vars") && !a0)) {
		r.k = PYA_V_GLOBALS;
		r.s = xstrdup("builtins");
	} else if (!strcmp(q, "builtins.vars") && a0 && a0->k == PYA_V_REF) {
		r.k = PYA_V_GLOBALS;
		r.s = xstrdup(a0->s);
	} else if (!strcmp(q, "builtins.chr") && a0 && a0->k == PYA_V_NUM && a0->num > 0 &&
		   a0->num < 0x110000) {
		char u[5];
		u[pylex_utf8_encode((uint32_t)a0->num, u)] = '\0';
		set_str(&r, xstrdup(u));
	} else if (!strcmp(q, "builtins.str") && a0 && a0->k == PYA_V_STR) {
		set_str(&r, xstrdup(a0->s));
	} else if (!strcmp(q, "builtins.map") && a0 && a1 && a0->k == PYA_V_REF &&
		   !strcmp(a0->s, "builtins.chr") && a1->k == PYA_V_LIST) {
		pya_val_copy(&r, a1);
		pya_chr_list(&r);
	} else if ((!strcmp(q, "builtins.bytes") || !strcmp(q, "builtins.bytearray")) && a0 &&
		   a0->k == PYA_V_LIST) {
		pya_val_copy(&r, a0);
		pya_chr_list(&r);
		char *s = pya_join_list("", &r);
		pya_val_clear(&r);
		if (s)
			set_str(&r, s);
	} else if ((!strcmp(q, "pathlib.Path") || !strcmp(q, "pathlib.PosixPath")) && a0 &&
		   a0->k == PYA_V_STR) {
		/* Path('/etc/x').write_text(...) is reported as a call of
		 * pathlib.Path.write_text with the path as its first argument. */
		r.k = PYA_V_PATH;
		r.s = xstrdup(a0->s);
	} else if (!strcmp(q, "builtins.reversed") && a0 && a0->k == PYA_V_STR) {
		set_str(&r, pya_reverse_utf8(a0->s));
	}
	pya_val_clear(f);
	*f = r;
}

static void call_strmeth(struct pya_val *f, struct call_args *a)
{
	const char *m = f->meth;
	const struct pya_val *a0 = a->n_pos > 0 ? &a->pos[0] : NULL;
	char *r = NULL;

	if (!strcmp(m, "join") && a0)
		r = a0->k == PYA_V_STR ? NULL : pya_join_list(f->s, a0);
	else if (!strcmp(m, "format") && a->n_kw == 0 && a->n_pos <= MAX_ARGS)
		r = pya_format_str(f->s, a->pos, (size_t)a->n_pos);
	else if ((!strcmp(m, "decode") || !strcmp(m, "encode") || !strcmp(m, "strip")) && !a0)
		r = xstrdup(f->s);
	else if (!strcmp(m, "lower") || !strcmp(m, "upper")) {
		r = xstrdup(f->s);
		for (char *p = r; *p; p++)
			if ((unsigned char)*p < 0x80)
				*p = (char)(m[0] == 'l' ? (*p >= 'A' && *p <= 'Z' ? *p + 32 : *p)
						     : (*p >= 'a' && *p <= 'z' ? *p - 32 : *p));
	} else if (!strcmp(m, "replace") && a->n_pos == 2 && a0->k == PYA_V_STR &&
		   a->pos[1].k == PYA_V_STR && a0->s[0]) {
		const char *from = a0->s, *to = a->pos[1].s;
		size_t fl = strlen(from), tl = strlen(to), o = 0, cap = strlen(f->s) + 1;
		r = xmalloc(cap);
		for (const char *p = f->s; *p;) {
			if (strncmp(p, from, fl) == 0) {
				cap += tl;
				r = xrealloc(r, cap);
				memcpy(r + o, to, tl);
				o += tl;
				p += fl;
			} else {
				r[o++] = *p++;
			}
		}
		r[o] = '\0';
	}
	if (r)
		set_str(f, r);
	else
		pya_val_clear(f);
}

/* Subscript or slice of a value; *i is after the '['. */
static void subscript(struct pya_ctx *c, size_t *i, struct pya_val *v)
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
	if (colons == 0 && idx[0].k == PYA_V_STR &&
	    (v->k == PYA_V_GLOBALS || v->k == PYA_V_MODULES ||
	     (v->k == PYA_V_REF && !strcmp(v->s, "builtins")))) {
		if (v->k == PYA_V_MODULES) {
			set_ref(&r, xstrdup(idx[0].s), 1);
		} else {
			const struct pya_binding *b = v->k == PYA_V_GLOBALS && !strcmp(v->s, "builtins")
				? pya_scope_lookup(c->module, idx[0].s, strlen(idx[0].s)) : NULL;
			if (b && b->kind == PYA_BIND_REF)
				set_ref(&r, xstrdup(b->s), 1);
			else
				set_ref(&r, xasprintf("%s.%s", v->s, idx[0].s), 1);
		}
	} else if (v->k == PYA_V_STR && colons == 2 && idx[0].k == PYA_V_UNKNOWN &&
		   idx[1].k == PYA_V_UNKNOWN && idx[2].k == PYA_V_NUM && idx[2].num == -1) {
		set_str(&r, pya_reverse_utf8(v->s));
	} else if (v->k == PYA_V_LIST && colons == 0 && idx[0].k == PYA_V_NUM && idx[0].num >= 0 &&
		   (size_t)idx[0].num < v->n_items) {
		pya_val_copy(&r, &v->items[idx[0].num]);
	}
	for (int k = 0; k < 3; k++)
		pya_val_clear(&idx[k]);
	if (v->k == PYA_V_DECODED && r.k == PYA_V_UNKNOWN)
		r.k = PYA_V_DECODED;
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
			v->k = PYA_V_GLOBALS;
			v->dynamic = 1;
			return;
		}
		char *q = dotted_join(v->s, strlen(v->s), name->s, name->n);
		int dyn = v->dynamic || name->owned;
		if (!strcmp(q, "sys.modules")) {
			pya_val_clear(v);
			free(q);
			v->k = PYA_V_MODULES;
			return;
		}
		set_ref(v, q, dyn);
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
	pya_val_clear(v);
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

	(*i)++;
	while (*i < c->n && !c->bail && !pya_tok_is(c, *i, PYT_OP, close)) {
		size_t before = *i;
		struct pya_val x = { 0 };
		if (pya_tok_is(c, *i, PYT_OP, "*") || pya_tok_is(c, *i, PYT_OP, "**"))
			(*i)++, known = 0;
		pya_expr(c, i, &x);
		if (val_decoded(&x)) {
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
				pya_val_clear(&x);
				if (*i == before)
					(*i)++;
			}
			if (*i < c->n && !c->bail)
				(*i)++;
		}
		if (!known || c->bail)
			return;
		char *s = xmalloc(total + 1);
		size_t o = 0;
		for (size_t k = start; k < *i; k++) {
			memcpy(s + o, c->t[k].s, c->t[k].n);
			o += c->t[k].n;
		}
		s[o] = '\0';
		set_str(v, s);
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
			struct call_args a = { 0 };
			const struct pytok *at = *i > 0 ? &c->t[*i - 1] : t;
			parse_args(c, i, &a);
			if (v->k == PYA_V_REF)
				call_ref(c, at, v, &a);
			else if (v->k == PYA_V_PATH && v->meth) {
				char *q = xasprintf("pathlib.Path.%s", v->meth);
				struct pya_event ev = { .kind = PYA_CALL, .name = q, .arg0 = v->s,
							.dynamic = v->dynamic, .kwargs = a.kw,
							.n_kwargs = a.n_kw, .n_args = a.n_pos };
				if (a.n_pos > 0 && a.pos[0].k == PYA_V_STR && !strcmp(v->meth, "open"))
					ev.mode = a.pos[0].s;
				pya_emit(c, &ev, at);
				free(q);
				pya_val_clear(v);
			} else if (v->k == PYA_V_STRMETH)
				call_strmeth(v, &a);
			else if ((v->k == PYA_V_GLOBALS || v->k == PYA_V_MODULES) && v->meth &&
				 a.n_pos > 0) {
				free(v->meth);
				v->meth = NULL;
				struct pya_val key = a.pos[0];
				(void)key;
				if (a.pos[0].k == PYA_V_STR) {
					char *q = v->k == PYA_V_MODULES ? xstrdup(a.pos[0].s)
						: xasprintf("%s.%s", v->s, a.pos[0].s);
					set_ref(v, q, 1);
				} else {
					pya_val_clear(v);
				}
			} else if (v->k != PYA_V_DECODED) {
				pya_val_clear(v);
			}
			args_clear(&a);
		} else if (pytok_is(t, PYT_OP, "[")) {
			(*i)++;
			subscript(c, i, v);
		} else {
			return;
		}
	}
}

static int binary_op(const struct pytok *t)
{
#define OP(s) { s, sizeof(s) - 1 }
	static const struct { const char *s; size_t n; } ops[] = {
		OP("+"), OP("-"), OP("*"), OP("/"), OP("%"), OP("//"), OP("**"), OP("|"), OP("&"),
		OP("^"), OP("<<"), OP(">>"), OP("=="), OP("!="), OP("<"), OP(">"), OP("<="),
		OP(">="), OP("@"), OP("and"), OP("or"), OP("in"), OP("not"), OP("is"), OP("if"),
		OP("else"), OP(":="),
	};
#undef OP
	if ((t->kind != PYT_OP && t->kind != PYT_NAME) || t->n > 4)
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(ops); k++)
		if (pytok_is_n(t, t->kind, ops[k].s, ops[k].n))
			return (t->kind == PYT_NAME) == (ops[k].s[0] >= 'a');
	return 0;
}

/* Python's integers do not overflow and a long does: past its range the
 * folder gives the value up instead of wrapping it. */
static void num_result(struct pya_val *v, bool overflowed)
{
	if (overflowed)
		v->k = PYA_V_UNKNOWN;
}

static void num_negate(struct pya_val *v)
{
	num_result(v, __builtin_sub_overflow(0L, v->num, &v->num));
}

static void combine(struct pya_val *l, const struct pytok *op, struct pya_val *r)
{
	char *s = NULL;

	if (pytok_is(op, PYT_OP, "+") && l->k == PYA_V_STR && r->k == PYA_V_STR)
		s = xasprintf("%s%s", l->s, r->s);
	else if (pytok_is(op, PYT_OP, "+") && l->k == PYA_V_NUM && r->k == PYA_V_NUM)
		num_result(l, __builtin_add_overflow(l->num, r->num, &l->num));
	else if (pytok_is(op, PYT_OP, "-") && l->k == PYA_V_NUM && r->k == PYA_V_NUM)
		num_result(l, __builtin_sub_overflow(l->num, r->num, &l->num));
	else if (pytok_is(op, PYT_OP, "%") && l->k == PYA_V_STR)
		s = pya_percent_str(l->s, r);
	else if (pytok_is(op, PYT_OP, "*") && l->k == PYA_V_STR && r->k == PYA_V_NUM &&
		 r->num >= 0 && r->num <= 64 && strlen(l->s) * (size_t)r->num < 4096) {
		size_t k = strlen(l->s);
		s = xmalloc(k * (size_t)r->num + 1);
		for (long j = 0; j < r->num; j++)
			memcpy(s + k * (size_t)j, l->s, k);
		s[k * (size_t)r->num] = '\0';
	} else if (l->k == PYA_V_NUM && r->k == PYA_V_NUM) {
		l->k = PYA_V_UNKNOWN;
	} else {
		int decoded = val_decoded(l) || val_decoded(r);
		pya_val_clear(l);
		l->k = decoded ? PYA_V_DECODED : PYA_V_UNKNOWN;
	}
	if (s)
		set_str(l, s);
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
	while (*i < c->n && (pya_tok_is(c, *i, PYT_NAME, "not") || pya_tok_is(c, *i, PYT_OP, "-") ||
			     pya_tok_is(c, *i, PYT_OP, "+") || pya_tok_is(c, *i, PYT_OP, "~") ||
			     pya_tok_is(c, *i, PYT_NAME, "await") || pya_tok_is(c, *i, PYT_OP, "*"))) {
		negate ^= pya_tok_is(c, *i, PYT_OP, "-");
		(*i)++;
	}
	atom(c, i, out);
	postfix(c, i, out);
	if (negate && out->k == PYA_V_NUM)
		num_negate(out);
	else if (negate)
		pya_val_clear(out);
	while (*i < c->n && !c->bail && binary_op(&c->t[*i])) {
		const struct pytok *op = &c->t[*i];
		struct pya_val r = { 0 };
		(*i)++;
		if (pytok_is(op, PYT_NAME, "not") || pytok_is(op, PYT_NAME, "is"))
			if (pya_tok_is(c, *i, PYT_NAME, "in") || pya_tok_is(c, *i, PYT_NAME, "not"))
				(*i)++;
		/* One level deeper per operator keeps long chains iterative. */
		int neg = 0;
		while (*i < c->n && (pya_tok_is(c, *i, PYT_NAME, "not") || pya_tok_is(c, *i, PYT_OP, "-") ||
				     pya_tok_is(c, *i, PYT_OP, "+") || pya_tok_is(c, *i, PYT_OP, "~"))) {
			neg ^= pya_tok_is(c, *i, PYT_OP, "-");
			(*i)++;
		}
		atom(c, i, &r);
		postfix(c, i, &r);
		if (neg && r.k == PYA_V_NUM)
			num_negate(&r);
		else if (neg)
			pya_val_clear(&r);
		combine(out, op, &r);
		pya_val_clear(&r);
	}
	c->depth--;
}
