/* Internal to the analyzer (pyanalyze.c statements, pyfold.c expressions). */
#ifndef MAI_PYANALYZE_INT_H
#define MAI_PYANALYZE_INT_H

#include "pyanalyze.h"

/* Deeper expressions are skipped a bracket at a time by the statement loop,
 * which resumes at depth 0, so every token is still looked at once. */
#define PYA_MAX_DEPTH 64
/* exec("...") of a constant string is analyzed as code, this deep. */
#define PYA_MAX_EXEC_DEPTH 3

enum pya_vk {
	PYA_V_UNKNOWN,
	PYA_V_STR,      /* s: constant text */
	PYA_V_NUM,      /* num */
	PYA_V_REF,      /* s: qualified module, function or attribute */
	PYA_V_DECODED,  /* the result of a decoding call */
	PYA_V_LIST,     /* items: a tuple or list display */
	PYA_V_GLOBALS,  /* a namespace dict: globals(), vars(mod), mod.__dict__; s: module */
	PYA_V_MODULES,  /* sys.modules */
	PYA_V_STRMETH,  /* s: a constant string, meth: one of its methods */
	PYA_V_PATH,     /* s: the constant path of a pathlib.Path; meth: a method */
};

struct pya_val {
	enum pya_vk k;
	/* Flags as bits: values are made and cleared for nearly every token. */
	unsigned dynamic : 1;
	unsigned taint : PYA_TAINT_BITS; /* enum pya_taint: outside data of these kinds */
	unsigned guess : 1;       /* PYA_V_REF: a name nobody bound, taken as itself */
	unsigned computed : 1;    /* PYA_V_UNKNOWN: a namespace entry under a computed key */
	unsigned ns_module : 1;   /* PYA_V_GLOBALS: globals(), locals() or vars() of this module */
	unsigned guess_local : 1; /* meth_tok is a bare local name, not a method */
	unsigned chr_of : 1;      /* chr() of a value not known: "".join(chr(c) for c in ...) */
	char *s;
	char *meth;
	long num;
	/* PYA_V_UNKNOWN: the attribute just taken of an object that cannot be
	 * named, or the bare name of a local; a call of it is reported as
	 * ".name". Points into the statement's tokens: never kept. */
	const struct pytok *meth_tok;
	struct pya_val *items;
	size_t n_items;
};

struct pya_ctx {
	pya_event_fn fn;
	void *fn_ctx;
	struct pya_scope *scope;
	struct pya_scope *module;
	const struct pytok *t;
	size_t n;
	int depth;
	int bail;             /* too deep: unwind to the statement loop */
	int in_loop;
	int outer_in_loop;    /* exec'd text: the exec call was in a loop */
	int exec_depth;
	unsigned at_line, at_col; /* the exec call, when exec_depth > 0 */
	int dynamic;          /* everything here comes from exec'd text */
	char **star;          /* modules imported with '*' */
	size_t n_star;
	struct py_metrics *m;
	const struct pya_filter *filter; /* NULL: report every unnamed call */
	struct pylex *lx;     /* the file's lexer, for syntax errors; NULL in exec'd text */
};

/* Frees what v holds and zeroes it. */
void pya_val_release(struct pya_val *v);
/* The same; inline because most values cleared hold nothing. */
static inline void pya_val_clear(struct pya_val *v)
{
	if (v->s || v->meth || v->items)
		pya_val_release(v);
	else
		*v = (struct pya_val){ 0 };
}
void pya_val_copy(struct pya_val *dst, const struct pya_val *src);
/* v becomes the constant string s (taken over). */
static inline void pya_set_str(struct pya_val *v, char *s)
{
	pya_val_clear(v);
	v->k = PYA_V_STR;
	v->s = s;
}
/* v becomes a reference to the qualified name s (taken over). */
static inline void pya_set_ref(struct pya_val *v, char *s, int dynamic)
{
	pya_val_clear(v);
	v->k = PYA_V_REF;
	v->s = s;
	v->dynamic = !!dynamic;
}
/* Does v (or an item of it) hold decoded data? Asked of nearly every
 * operand: the items only when there are some. */
int pya_items_decoded(const struct pya_val *v);
static inline int pya_val_decoded(const struct pya_val *v)
{
	return v->k == PYA_V_DECODED || (v->n_items && pya_items_decoded(v));
}
/* Is v the builtins' namespace (builtins, __builtins__, vars(builtins),
 * builtins.__dict__), not globals() or another object's __dict__? */
int pya_is_builtins_ns(const struct pya_val *v);
/* Reports a name computed at run time (special: "computed-builtin",
 * "dynamic-attribute"), and decode-exec when the name was decoded. */
void pya_computed_name(struct pya_ctx *c, const char *special, const struct pya_val *name,
		       const struct pytok *at);
/* A call: parses the arguments at *i (the '(') and replaces v, the callee,
 * with what the call returns; reports the call. at: where it is reported. */
void pya_call(struct pya_ctx *c, size_t *i, struct pya_val *v, const struct pytok *at);
/* Folding helpers (pyfold_str.c): new strings, or NULL when not constant. */
char *pya_format_str(const char *fmt, const struct pya_val *args, size_t n);
char *pya_percent_str(const char *fmt, const struct pya_val *v);
char *pya_join_list(const char *sep, const struct pya_val *v);
/* sep.join(s) of a string: its characters with sep between them; NULL when
 * that would be too long to fold. */
char *pya_join_chars(const char *sep, const char *s);
/* Numbers of a list become one-character strings (map(chr, ...)). */
void pya_chr_list(struct pya_val *v);
char *pya_reverse_utf8(const char *s);
/* Parses one expression at *i, consuming what it understands; calls found
 * on the way are reported. */
void pya_expr(struct pya_ctx *c, size_t *i, struct pya_val *out);
/* Resolves a bare name in the current scopes. */
void pya_resolve_name(struct pya_ctx *c, const struct pytok *t, struct pya_val *out);
void pya_emit(struct pya_ctx *c, struct pya_event *ev, const struct pytok *at);
/* Where values come from (pyorigin.c). */
/* What outside data a call of q (a qualified name, or ".meth" of an
 * unnamed object) reads: enum pya_taint bits, 0 for none. */
unsigned pya_reads_outside(const char *q);
/* The same for the reference q (sys.argv, os.environ...). */
unsigned pya_ref_is_outside(const char *q);
/* Host identity an environment variable's name stands for (USER,
 * HOSTNAME...): PYA_TAINT_HOST, else PYA_TAINT_DATA. */
unsigned pya_env_taint(const char *name);
/* Is the environment variable the home directory (HOME, USERPROFILE)? Its
 * value is then the path "~". */
int pya_env_is_home(const char *name);
/* The origin of one argument value. */
enum pya_origin pya_val_origin(const struct pya_val *v);
/* Is this keyword argument an option flag (shell, stdout...) rather than
 * the data the call works on? */
int pya_kwarg_is_option(const char *name);
/* The number of a stat module constant (stat.S_IWOTH), or -1. */
long pya_stat_constant(const char *q);
/* The truth value of an argument, when known. */
enum pya_truth pya_val_truth(const struct pya_val *v, const struct pytok *first, size_t ntok);
/* Scans the decoded source for bidirectional control characters and
 * reports the first as a "bidi-control" special event. */
void pya_scan_bidi(struct pya_ctx *c, const char *buf, size_t len);
/* Analyzes text (exec'd constant strings) as code with dynamic events. */
void pya_analyze_text(struct pya_ctx *c, const char *s, size_t n, const struct pytok *at);
static inline __attribute__((always_inline)) int pya_tok_is(const struct pya_ctx *c, size_t i,
							    enum pytok_kind k, const char *s)
{
	return i < c->n && pytok_is(&c->t[i], k, s);
}

#endif
