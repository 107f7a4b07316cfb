/* Statements: imports and their aliases, assignments (what a name holds
 * now), def/class scopes, loops, one-line compound statements, metrics. */
#include <string.h>

#include "pyanalyze_int.h"

struct loop_stack {
	size_t *indent;
	size_t n, cap;
};

void pya_emit(struct pya_ctx *c, struct pya_event *ev, const struct pytok *at)
{
	if (c->exec_depth > 0) {
		/* Code inside exec'd text is reported at the exec call. */
		ev->line = c->at_line;
		ev->col = c->at_col;
	} else if (at) {
		ev->line = at->line;
		ev->col = at->col;
	}
	ev->in_loop = c->in_loop;
	if (c->dynamic)
		ev->dynamic = 1;
	c->fn(c->fn_ctx, ev);
}

static int is_name(const struct pya_ctx *c, size_t i, const char *s)
{
	return pya_tok_is(c, i, PYT_NAME, s);
}

static int is_op(const struct pya_ctx *c, size_t i, const char *s)
{
	return pya_tok_is(c, i, PYT_OP, s);
}

static void bind(struct pya_ctx *c, const struct pytok *t, enum pya_bind kind, const char *s,
		 int dynamic)
{
	struct pya_binding b = { .kind = kind, .s = (char *)s, .dynamic = dynamic };
	pya_scope_bind(c->scope, t->s, t->n, &b);
}

/* codes = [95, 95, 105, ...]: a list of character codes is kept as the
 * text it spells, for "".join(chr(c) for c in codes). NULL for any other
 * list (caller frees). */
static char *codes_text(const struct pya_val *v)
{
	if (v->n_items < 4 || v->n_items > 4096)
		return NULL;
	for (size_t k = 0; k < v->n_items; k++)
		if (v->items[k].k != PYA_V_NUM || v->items[k].num <= 0 || v->items[k].num > 0x10ffff)
			return NULL;
	char *s = xmalloc(v->n_items * 4 + 1), *o = s;
	for (size_t k = 0; k < v->n_items; k++)
		o += pylex_utf8_encode((uint32_t)v->items[k].num, o);
	*o = '\0';
	return s;
}

static void bind_value(struct pya_ctx *c, const struct pytok *t, const struct pya_val *v)
{
	struct pya_binding b = { .kind = PYA_BIND_LOCAL, .taint = v->taint };

	switch (v->k) {
	case PYA_V_REF:
		b.kind = PYA_BIND_REF;
		b.s = v->s;
		b.dynamic = v->dynamic;
		b.guess = v->guess;
		break;
	case PYA_V_STR: b.kind = PYA_BIND_CONST; b.s = v->s; break;
	case PYA_V_NUM: b.kind = PYA_BIND_NUM; b.num = v->num; break;
	case PYA_V_DECODED: b.kind = PYA_BIND_DECODED; break;
	/* A namespace held in a name is still one: ns = vars(os); ns['system']. */
	case PYA_V_GLOBALS:
		b.kind = PYA_BIND_NS;
		b.s = v->s;
		b.ns_module = v->ns_module;
		break;
	case PYA_V_MODULES: b.kind = PYA_BIND_MODULES; break;
	/* parts = [b64decode(...)]: what is taken of it is decoded data. */
	case PYA_V_LIST:
		if (pya_items_decoded(v))
			b.kind = PYA_BIND_DECODED;
		else if ((b.s = codes_text(v)))
			b.kind = PYA_BIND_CODES;
		break;
	default: break;
	}
	pya_scope_bind(c->scope, t->s, t->n, &b);
	if (b.kind == PYA_BIND_CODES)
		free(b.s);
}

/* Binds the plain names of a target list [from, to) as locals holding
 * outside data of these kinds (for x in sys.argv, with open(p) as f: ...). */
static void bind_targets_outside(struct pya_ctx *c, size_t from, size_t to, unsigned taint)
{
	struct pya_binding b = { .kind = PYA_BIND_LOCAL, .taint = taint };
	for (size_t k = from; k < to; k++)
		if (c->t[k].kind == PYT_NAME)
			pya_scope_bind(c->scope, c->t[k].s, c->t[k].n, &b);
}

/* "for p in ('/etc/passwd', '/etc/shadow')": the loop's name takes each
 * constant in turn; the analyzer follows one, the one that says most (a
 * system path), so that what the body does with it meets the rules. NULL
 * when the items are not all constant text. */
static const struct pya_val *telling_item(const struct pya_val *it)
{
	const struct pya_val *pick = NULL;

	if (it->k != PYA_V_LIST || !it->n_items)
		return NULL;
	for (size_t k = 0; k < it->n_items; k++) {
		if (it->items[k].k != PYA_V_STR)
			return NULL;
		if (!pick || (!(pick->taint & PYA_TAINT_SYSTEM) && (it->items[k].taint & PYA_TAINT_SYSTEM)))
			pick = &it->items[k];
	}
	return pick;
}

/* Reads a dotted name at *i into a new string. */
static char *dotted(const struct pya_ctx *c, size_t *i)
{
	size_t cap = 64, o = 0;
	char *s = xmalloc(cap);

	s[0] = '\0';
	while (*i < c->n && (c->t[*i].kind == PYT_NAME || is_op(c, *i, ".") || is_op(c, *i, "..."))) {
		const struct pytok *t = &c->t[*i];
		if (t->kind == PYT_NAME && o > 0 && s[o - 1] != '.')
			break;
		if (o + t->n + 1 >= cap) {
			cap = (o + t->n + 1) * 2;
			s = xrealloc(s, cap);
		}
		memcpy(s + o, t->s, t->n);
		o += t->n;
		s[o] = '\0';
		(*i)++;
	}
	return s;
}

static void import_stmt(struct pya_ctx *c, size_t i)
{
	i++; /* import */
	while (i < c->n) {
		const struct pytok *first = &c->t[i];
		char *mod = dotted(c, &i);
		struct pya_event ev = { .kind = PYA_IMPORT, .name = mod };
		pya_emit(c, &ev, first);
		c->m->imports++;
		if (is_name(c, i, "as") && i + 1 < c->n) {
			bind(c, &c->t[i + 1], PYA_BIND_REF, mod, first->owned);
			i += 2;
		} else if (first->kind == PYT_NAME) {
			char *top = xstrndup(first->s, first->n);
			bind(c, first, PYA_BIND_REF, top, first->owned);
			free(top);
		}
		free(mod);
		if (!is_op(c, i, ","))
			break;
		i++;
	}
}

static void from_stmt(struct pya_ctx *c, size_t i)
{
	const struct pytok *at = &c->t[i];
	i++; /* from */
	char *mod = dotted(c, &i);
	struct pya_event ev = { .kind = PYA_IMPORT, .name = mod };

	pya_emit(c, &ev, at);
	c->m->imports++;
	if (is_name(c, i, "import"))
		i++;
	while (i < c->n) {
		if (is_op(c, i, "(") || is_op(c, i, ")") || is_op(c, i, ",")) {
			i++;
			continue;
		}
		if (is_op(c, i, "*")) {
			c->star = xrealloc(c->star, (c->n_star + 1) * sizeof(char *));
			c->star[c->n_star++] = xstrdup(mod);
			i++;
			continue;
		}
		if (c->t[i].kind != PYT_NAME)
			break;
		const struct pytok *name = &c->t[i];
		char *q = xasprintf("%s.%.*s", mod, (int)name->n, name->s);
		struct pya_event iev = { .kind = PYA_IMPORT, .name = q };
		pya_emit(c, &iev, name);
		i++;
		if (is_name(c, i, "as") && i + 1 < c->n) {
			bind(c, &c->t[i + 1], PYA_BIND_REF, q, name->owned);
			i += 2;
		} else {
			bind(c, name, PYA_BIND_REF, q, name->owned);
		}
		free(q);
	}
	free(mod);
}

/* Evaluates one expression of a statement at *i, from depth 0 (an
 * expression too deep for one statement resumes here, see pya_expr). */
static void statement_expr(struct pya_ctx *c, size_t *i, struct pya_val *v)
{
	c->depth = 0;
	c->bail = 0;
	pya_expr(c, i, v);
}

/* Evaluates every expression of [i, n) for the calls in it. */
static void scan_exprs(struct pya_ctx *c, size_t i)
{
	while (i < c->n) {
		size_t before = i;
		struct pya_val v = { 0 };
		statement_expr(c, &i, &v);
		pya_val_clear(&v);
		if (i == before)
			i++;
	}
}

/* Binds the plain names of an assignment target list [from, to) as local. */
static void bind_targets_local(struct pya_ctx *c, size_t from, size_t to)
{
	/* Only names inside displays ("(a, b)", "[a, b]") are targets; inside a
	 * subscript or a call ("d[os]", "f(x).y") they are read, not bound,
	 * and a dict or set holds no targets. */
	unsigned char sub[64];
	size_t depth = 0, reading = 0;
	for (size_t k = from; k < to; k++) {
		if (is_op(c, k, "(") || is_op(c, k, "[") || is_op(c, k, "{")) {
			if (depth == sizeof(sub))
				return; /* deeper than any target list: bind nothing more */
			sub[depth] = is_op(c, k, "{") ||
				     (k > from && (c->t[k - 1].kind == PYT_NAME || is_op(c, k - 1, ")") ||
						   is_op(c, k - 1, "]")));
			reading += sub[depth++];
			continue;
		}
		if (is_op(c, k, ")") || is_op(c, k, "]") || is_op(c, k, "}")) {
			if (depth > 0)
				reading -= sub[--depth];
			continue;
		}
		if (!reading && c->t[k].kind == PYT_NAME &&
		    (k == from || is_op(c, k - 1, ",") || is_op(c, k - 1, "(") || is_op(c, k - 1, "[") ||
		     is_op(c, k - 1, "*")) &&
		    (k + 1 == to || is_op(c, k + 1, ",") || is_op(c, k + 1, ")") || is_op(c, k + 1, "]")))
			bind(c, &c->t[k], PYA_BIND_LOCAL, NULL, 0);
	}
}

/* What is stored into a local (d["k"] = v, x += v, a, b = v) joins the
 * outside data it holds: a dict filled with the host's name is the host's
 * name when it is sent. A name bound to a module or a constant keeps its
 * binding. */
static void taint_target(struct pya_ctx *c, const struct pytok *t, unsigned taint)
{
	const struct pya_binding *b = pya_scope_lookup(c->scope, t->s, t->n);
	if (!taint || (b && b->kind != PYA_BIND_LOCAL))
		return;
	struct pya_binding nb = { .kind = PYA_BIND_LOCAL, .taint = taint | (b ? b->taint : 0) };
	pya_scope_bind(c->scope, t->s, t->n, &nb);
}

/* "a, b = x, y": the right side as a tuple; *i is at the first ','. */
static void rhs_tuple(struct pya_ctx *c, size_t *i, struct pya_val *v)
{
	struct pya_val list = { .k = PYA_V_LIST };

	list.items = xcalloc(1, sizeof(*list.items));
	list.items[list.n_items++] = *v;
	while (*i < c->n && !c->bail && is_op(c, *i, ",")) {
		(*i)++;
		if (*i >= c->n)
			break;
		list.items = xrealloc(list.items, (list.n_items + 1) * sizeof(*list.items));
		memset(&list.items[list.n_items], 0, sizeof(list.items[0]));
		pya_expr(c, i, &list.items[list.n_items++]);
	}
	*v = list;
}

/* Binds "a, b" / "(a, b)" / "[a, b]" in [from, to) item by item to a
 * tuple value of as many items; 0 when the targets are of another shape. */
static int unpack_targets(struct pya_ctx *c, size_t from, size_t to, const struct pya_val *v)
{
	size_t n = 0;

	if (v->k != PYA_V_LIST)
		return 0;
	if (to - from >= 2 && ((is_op(c, from, "(") && is_op(c, to - 1, ")")) ||
			       (is_op(c, from, "[") && is_op(c, to - 1, "]"))))
		from++, to--;
	for (size_t k = from; k < to; k += 2) {
		if (c->t[k].kind != PYT_NAME || (k + 1 < to && !is_op(c, k + 1, ",")))
			return 0;
		n++;
	}
	if (n != v->n_items)
		return 0;
	for (size_t k = from, j = 0; k < to; k += 2, j++)
		bind_value(c, &c->t[k], &v->items[j]);
	return 1;
}

static void simple_stmt(struct pya_ctx *c)
{
	size_t i = 0;

	if (c->n == 0)
		return;
	c->m->statements++;
	if (is_name(c, 0, "import"))
		return import_stmt(c, 0);
	if (is_name(c, 0, "from") && c->n > 1 && !is_name(c, 1, "None"))
		return from_stmt(c, 0);
	if (is_name(c, 0, "global") || is_name(c, 0, "nonlocal"))
		return;
	if (c->lx && c->n > 1 && (is_name(c, 0, "print") || is_name(c, 0, "exec")) &&
	    (c->t[1].kind == PYT_STRING || c->t[1].kind == PYT_NUMBER ||
	     (c->t[1].kind == PYT_NAME && !pytok_is(&c->t[1], PYT_NAME, "if") &&
	      !pytok_is(&c->t[1], PYT_NAME, "and") && !pytok_is(&c->t[1], PYT_NAME, "or") &&
	      !pytok_is(&c->t[1], PYT_NAME, "in") && !pytok_is(&c->t[1], PYT_NAME, "is") &&
	      !pytok_is(&c->t[1], PYT_NAME, "not"))))
		/* Python 2's print and exec statements. */
		pylex_error_at(c->lx, c->t[0].line, c->t[0].col,
			       is_name(c, 0, "print") ? "missing parentheses in call to 'print'"
						      : "missing parentheses in call to 'exec'");
	/* Assignment: the last '=' at depth 0 separates the targets. */
	long depth = 0;
	size_t last_eq = 0, first_eq = 0, annot = 0;
	int aug = 0;
	for (size_t k = 0; k < c->n; k++) {
		const struct pytok *t = &c->t[k];
		if (t->kind != PYT_OP)
			continue;
		if (t->n == 1 && (t->s[0] == '(' || t->s[0] == '[' || t->s[0] == '{'))
			depth++;
		else if (t->n == 1 && (t->s[0] == ')' || t->s[0] == ']' || t->s[0] == '}'))
			depth--;
		else if (depth == 0 && pytok_is(t, PYT_OP, "=")) {
			if (!first_eq)
				first_eq = k;
			last_eq = k;
		} else if (depth == 0 && !annot && pytok_is(t, PYT_OP, ":") && !first_eq)
			annot = k;
		else if (depth == 0 && t->n >= 2 && t->s[t->n - 1] == '=' && !first_eq &&
			 !pytok_is(t, PYT_OP, "==") && t->s[0] != '<' && t->s[0] != '>' && t->s[0] != '!')
			aug = 1, first_eq = last_eq = k;
	}
	if (!last_eq) {
		if (annot && c->t[0].kind == PYT_NAME)
			bind(c, &c->t[0], PYA_BIND_LOCAL, NULL, 0);
		return scan_exprs(c, 0);
	}
	struct pya_val v = { 0 };
	i = last_eq + 1;
	statement_expr(c, &i, &v);
	if (is_op(c, i, ","))
		rhs_tuple(c, &i, &v);
	scan_exprs(c, i);
	/* Targets: "a = b = value"; attribute and subscript targets are
	 * expressions too (their calls count). */
	size_t start = 0;
	size_t end_first = annot ? annot : first_eq;
	for (size_t k = 0; k <= last_eq; k++) {
		if (k != last_eq && !(k >= first_eq && is_op(c, k, "=")))
			continue;
		size_t to = (start == 0) ? end_first : k;
		if (to == start + 1 && c->t[start].kind == PYT_NAME && !aug) {
			bind_value(c, &c->t[start], &v);
		} else if (to > start && (aug || !unpack_targets(c, start, to, &v))) {
			if (!aug && (is_op(c, start + 1, "[") || is_op(c, start + 1, ".")) &&
			    c->t[start].kind == PYT_NAME) {
				taint_target(c, &c->t[start], v.taint);
			} else {
				bind_targets_local(c, start, to);
				for (size_t k2 = start; k2 < to && v.taint; k2++)
					if (c->t[k2].kind == PYT_NAME)
						taint_target(c, &c->t[k2], v.taint);
			}
		}
		if (aug && c->t[0].kind == PYT_NAME) {
			const struct pya_binding *b = pya_scope_lookup(c->scope, c->t[0].s, c->t[0].n);
			unsigned old_taint = b ? b->taint : 0;
			bind(c, &c->t[0], PYA_BIND_LOCAL, NULL, 0);
			taint_target(c, &c->t[0], v.taint | old_taint);
		}
		start = k + 1;
		if (k == last_eq)
			break;
	}
	pya_val_clear(&v);
}

/* "with (A as a, B as b):" (3.10): the parentheses hold the items when
 * they close at the header's end around an "as" or a ','; in
 * "with (A) as a:" they are the expression's. */
static int parenthesized_items(const struct pya_ctx *c)
{
	long depth = 0;
	int sep = 0;

	if (!is_op(c, 1, "("))
		return 0;
	for (size_t k = 1; k < c->n; k++) {
		const struct pytok *t = &c->t[k];
		if (t->kind == PYT_OP && t->n == 1 && strchr("([{", t->s[0])) {
			depth++;
		} else if (t->kind == PYT_OP && t->n == 1 && strchr(")]}", t->s[0])) {
			if (--depth == 0)
				return k == c->n - 1 && sep;
		} else if (depth == 1 && (pytok_is(t, PYT_NAME, "as") || pytok_is(t, PYT_OP, ","))) {
			sep = 1;
		}
	}
	return 0;
}

/* The end of a with item's target starting at from: the ',' or ')' or ':'
 * outside brackets that follows it, or the header's end. */
static size_t with_target_end(const struct pya_ctx *c, size_t from)
{
	long depth = 0;
	size_t k = from;
	for (; k < c->n; k++) {
		if (depth == 0 && (is_op(c, k, ",") || is_op(c, k, ")") || is_op(c, k, ":")))
			break;
		if (is_op(c, k, "(") || is_op(c, k, "[") || is_op(c, k, "{"))
			depth++;
		else if (is_op(c, k, ")") || is_op(c, k, "]") || is_op(c, k, "}"))
			depth--;
	}
	return k;
}

/* "with A as a, B as b:": each name holds what its expression gave
 * (an open file, a tarfile, a socket), so its methods are named. A target
 * that is not a plain name ("as (a, b)", "as obj.attr", "as d[k]") binds
 * the names it lists as locals, and only those: "as os.handle" sets an
 * attribute of os and leaves os the module. */
static void with_items(struct pya_ctx *c)
{
	size_t i = parenthesized_items(c) ? 2 : 1;
	while (i < c->n) {
		size_t before = i;
		struct pya_val v = { 0 };
		statement_expr(c, &i, &v);
		if (pya_tok_is(c, i, PYT_NAME, "as") && i + 1 < c->n) {
			size_t end = with_target_end(c, i + 1);
			if (c->t[i + 1].kind == PYT_NAME && end == i + 2)
				bind_value(c, &c->t[i + 1], &v);
			else
				bind_targets_local(c, i + 1, end);
			i = end > i + 1 ? end : i + 2;
		}
		pya_val_clear(&v);
		if (i == before)
			i++;
		while (i < c->n && (is_op(c, i, ",") || is_op(c, i, ")")))
			i++;
	}
}

static void push_loop(struct loop_stack *ls, size_t indent)
{
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? ls->cap * 2 : 8;
		ls->indent = xrealloc(ls->indent, ls->cap * sizeof(size_t));
	}
	ls->indent[ls->n++] = indent;
}

/* Handles one logical line: compound headers, one-line bodies, ';'. */
static void statement(struct pya_ctx *c, const struct pytok *t, size_t n, size_t indent,
		      struct loop_stack *ls)
{
	while (n > 0) {
		/* Split at ';' (depth 0), and after a compound header's ':'. */
		long depth = 0;
		size_t k, cut = n, resume = n;
		int compound = 0, is_loop = 0, is_def = 0, is_class = 0;
		size_t off = 0;
		if (pytok_is(&t[0], PYT_NAME, "async") && n > 1)
			off = 1;
		const struct pytok *kw = &t[off];
		if (kw->kind == PYT_NAME) {
#define HEAD(s) { s, sizeof(s) - 1 }
			static const struct { const char *s; size_t n; } heads[] = {
				HEAD("if"), HEAD("elif"), HEAD("else"), HEAD("while"), HEAD("for"),
				HEAD("try"), HEAD("except"), HEAD("finally"), HEAD("with"), HEAD("def"),
				HEAD("class"),
			};
#undef HEAD
			for (size_t h = 0; h < ARRAY_SIZE(heads) && !compound; h++)
				compound = pytok_is_n(kw, PYT_NAME, heads[h].s, heads[h].n);
			is_loop = pytok_is(kw, PYT_NAME, "while") || pytok_is(kw, PYT_NAME, "for");
			is_def = pytok_is(kw, PYT_NAME, "def");
			is_class = pytok_is(kw, PYT_NAME, "class");
		}
		for (k = 0; k < n; k++) {
			char ch = t[k].kind == PYT_OP && t[k].n == 1 ? t[k].s[0] : 0;
			if (ch == '(' || ch == '[' || ch == '{')
				depth++;
			else if (ch == ')' || ch == ']' || ch == '}')
				depth--;
			else if (depth == 0 && pytok_is(&t[k], PYT_OP, ";")) {
				cut = k;
				resume = k + 1;
				break;
			} else if (depth == 0 && compound && pytok_is(&t[k], PYT_OP, ":") &&
				   !(k > 0 && pytok_is(&t[k - 1], PYT_NAME, "lambda"))) {
				cut = k;
				resume = k + 1;
				break;
			}
		}
		if (compound && cut == n && c->lx && k == n) {
			/* A block header runs to its ':'; Python stops here. */
			const struct pytok *last = &t[n - 1];
			pylex_error_at(c->lx, last->line, last->col + (unsigned)last->n, "expected ':'");
		}
		c->t = t + off;
		c->n = cut > off ? cut - off : 0;
		if (is_loop) {
			c->m->loops++;
			/* The header runs with the loop; the body is inside it. */
			if (pytok_is(kw, PYT_NAME, "for")) {
				size_t in = 1;
				while (in < c->n && !pya_tok_is(c, in, PYT_NAME, "in"))
					in++;
				bind_targets_local(c, 1, in);
				if (in + 1 < c->n) {
					size_t e = in + 1;
					struct pya_val it = { 0 };
					statement_expr(c, &e, &it);
					if (it.taint)
						bind_targets_outside(c, 1, in, it.taint);
					const struct pya_val *one = telling_item(&it);
					if (one && in == 2 && c->t[1].kind == PYT_NAME)
						bind_value(c, &c->t[1], one);
					pya_val_clear(&it);
					scan_exprs(c, e);
				}
			} else {
				scan_exprs(c, 1);
			}
			c->m->statements++;
			push_loop(ls, indent + 1);
			c->in_loop = 1;
		} else if (is_def || is_class) {
			c->m->statements++;
			if (is_def)
				c->m->functions++;
			if (c->n > 1)
				bind(c, &c->t[1], PYA_BIND_LOCAL, NULL, 0);
			/* Defaults and bases run in the enclosing scope. */
			scan_exprs(c, 2);
			c->scope = pya_scope_new(indent + 1, c->scope);
			for (size_t p = 2; p < c->n; p++)
				if (c->t[p].kind == PYT_NAME && p > 0 &&
				    (is_op(c, p - 1, "(") || is_op(c, p - 1, ",") || is_op(c, p - 1, "*") ||
				     is_op(c, p - 1, "**")))
					bind(c, &c->t[p], PYA_BIND_LOCAL, NULL, 0);
		} else if (compound) {
			c->m->statements++;
			if (pytok_is(kw, PYT_NAME, "with")) {
				with_items(c);
			} else {
				if (pytok_is(kw, PYT_NAME, "except"))
					for (size_t p = 1; p + 1 < c->n; p++)
						if (pya_tok_is(c, p, PYT_NAME, "as"))
							bind_targets_local(c, p + 1, p + 2);
				scan_exprs(c, 1);
			}
		} else {
			simple_stmt(c);
		}
		if (resume >= n)
			break;
		t += resume;
		n -= resume;
		if (compound)
			indent++; /* a one-line body belongs to the header */
	}
}

static void run(struct pya_ctx *c, struct pylex *lx)
{
	struct pytok_vec v = { 0 };
	struct loop_stack ls = { 0 };
	const struct pya_scope *outer = c->scope;
	while (pylex_statement(lx, &v)) {
		while (c->scope != outer && pya_scope_indent(c->scope) > v.indent)
			c->scope = pya_scope_pop(c->scope);
		while (ls.n > 0 && ls.indent[ls.n - 1] > v.indent)
			ls.n--;
		c->in_loop = ls.n > 0 || c->outer_in_loop;
		statement(c, v.t, v.n, v.indent, &ls);
		/* One-line bodies push scopes and loops deeper than any next line. */
		while (ls.n > 0 && ls.indent[ls.n - 1] > v.indent + 1)
			ls.n--;
	}
	while (c->scope != outer)
		c->scope = pya_scope_pop(c->scope);
	pytok_vec_free(&v);
	free(ls.indent);
}

void pya_analyze_text(struct pya_ctx *c, const char *s, size_t n, const struct pytok *at)
{
	struct pylex lx;
	const char *reason;
	size_t off;

	if (c->exec_depth >= PYA_MAX_EXEC_DEPTH)
		return;
	if (pylex_open(&lx, (const uint8_t *)s, n, &reason, &off) == 0) {
		struct pya_ctx sub = *c;
		struct py_metrics ignored = { 0 };
		sub.exec_depth++;
		sub.lx = NULL;
		sub.outer_in_loop = c->in_loop;
		if (c->exec_depth == 0 && at) {
			sub.at_line = at->line;
			sub.at_col = at->col;
		}
		sub.dynamic = 1;
		sub.m = &ignored;
		sub.scope = pya_scope_new(0, c->scope);
		struct pya_scope *mine = sub.scope;
		run(&sub, &lx);
		pya_scope_pop(mine);
		c->star = sub.star;
		c->n_star = sub.n_star;
	}
	pylex_close(&lx);
}

void pya_analyze(struct pylex *lx, pya_event_fn fn, void *ctx, struct py_metrics *m,
		 const struct pya_filter *filter)
{
	struct pya_ctx c = { .fn = fn, .fn_ctx = ctx, .m = m, .filter = filter, .lx = lx };

	c.module = c.scope = pya_scope_new(0, NULL);
	pya_scan_bidi(&c, lx->buf, lx->len);
	run(&c, lx);
	pya_scope_pop(c.module);
	for (size_t i = 0; i < c.n_star; i++)
		free(c.star[i]);
	free(c.star);
	m->lines = lx->lines;
	m->max_nesting = lx->max_indent;
	m->bytes = lx->len;
}
