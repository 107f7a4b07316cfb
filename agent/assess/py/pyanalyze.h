/* The analyzer: walks the lexer's statements, tracks imports, aliases,
 * constant strings and decoded values per scope, and reports events (calls
 * with resolved qualified names, imports, strings, tricks) that the rules
 * (assess_rules.c) turn into findings. It never decides a level itself. */
#ifndef MAI_PYANALYZE_H
#define MAI_PYANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "pylex.h"
#include "pymetrics.h"

enum pya_event_kind {
	PYA_CALL,     /* name: qualified callee, "os.system", "builtins.eval" */
	PYA_IMPORT,   /* name: module, or module.name for from-imports */
	PYA_STRING,   /* name: a string constant (literal or folded) */
	PYA_SPECIAL,  /* name: "decode-exec", "subclasses", "encoding-abusable",
		       * "encoding-unknown", "builtins-modified", "dynamic-import",
		       * "computed-builtin", "computed-call", "bidi-control" */
};

/* Where the arguments of a call come from (the payload: positional
 * arguments and keywords that carry data, not option flags such as
 * shell= or stdout=). The worst of them wins: outside, then unresolved. */
/* What kind of data from outside a value carries, as bits: rules name
 * them (`taint:` in assess_rules.yaml) to tell what reaches a call. */
enum pya_taint {
	PYA_TAINT_TYPED = 1 << 0,  /* input(), sys.stdin, getpass: typed by whoever runs it */
	PYA_TAINT_DATA = 1 << 1,   /* argv, files, one environment variable, a process's output */
	PYA_TAINT_NET = 1 << 2,    /* sockets, HTTP responses, downloads */
	PYA_TAINT_SECRET = 1 << 3, /* the whole environment, credentials files, keys, browser data */
	PYA_TAINT_HOST = 1 << 4,   /* host identity: host name, user name, uname, MAC address */
	/* Not outside data: a path from the root of the system or the home
	 * directory itself ("/etc", "~"), and what is computed from one
	 * (os.walk("/home"), os.path.join(root, name)). */
	PYA_TAINT_SYSTEM = 1 << 5,
	/* One environment variable whose name says it is a credential
	 * (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY): the script's own setting
	 * for its service, counted with "data" too. */
	PYA_TAINT_CREDENTIAL = 1 << 6,
};
#define PYA_TAINT_BITS 7
/* "typed", "data", "network", "secret", "host", "system", "credential"
 * for one bit; NULL otherwise. */
const char *pya_taint_to_string(unsigned bit);

enum pya_origin {
	PYA_ORIGIN_NONE,       /* not a call */
	PYA_ORIGIN_LITERAL,    /* constants, or folded from constants (no argument: literal) */
	PYA_ORIGIN_UNRESOLVED, /* a value the analyzer cannot follow */
	PYA_ORIGIN_OUTSIDE,    /* argv, environ, stdin, input(), files, sockets, HTTP */
};
const char *pya_origin_to_string(enum pya_origin o);

/* Does the constant text name a path from the root of the system (not
 * under /tmp) or the home directory itself? */
int pya_names_system_path(const char *s);
/* What a constant text names, as bits: a store of secrets (an SSH key, a
 * browser's saved logins, a credentials file), a place from which code
 * starts by itself (cron, a shell profile, a Startup folder), the
 * registry's Run key, a sign of looking for a sandbox or a debugger. One
 * pass over the n bytes of s. */
enum pya_mark {
	PYA_MARK_SECRET = 1 << 0,
	PYA_MARK_STARTUP = 1 << 1,
	PYA_MARK_RUN_KEY = 1 << 2,
	PYA_MARK_ANALYSIS = 1 << 3,
};
unsigned pya_string_marks(const char *s, size_t n);
/* pya_string_marks(s, strlen(s)) & PYA_MARK_SECRET */
int pya_names_secret(const char *s);

/* A Python truth value when the analyzer knows it. */
enum pya_truth {
	PYA_TRUTH_UNKNOWN = -1,
	PYA_TRUTH_FALSE = 0,
	PYA_TRUTH_TRUE = 1,
};

struct pya_kwarg {
	const char *name;
	const char *value; /* folded constant ("True", "'w'" as w) or NULL */
	enum pya_truth truth;
};

struct pya_event {
	enum pya_event_kind kind;
	const char *name;
	unsigned line, col;
	int dynamic;        /* resolved through strings, getattr, globals()... */
	int in_loop;        /* inside a for/while body */
	int decoded_arg;    /* an argument comes from a decoding call */
	int n_args;         /* positional arguments */
	const char *arg0;   /* first positional argument when constant */
	const char *arg0_ref; /* first positional argument when a known object */
	const char *arg0_first; /* arg0, or the first item of a list argument, when constant */
	const char *mode;   /* open(): the mode when constant */
	long mode_bits;     /* chmod: the numeric mode (second argument or mode=) ... */
	int mode_known;     /* ... when it folds to a number */
	enum pya_origin origin;
	unsigned taint;     /* enum pya_taint bits of every argument (payload or not) */
	const struct pya_kwarg *kwargs;
	size_t n_kwargs;
};

typedef void (*pya_event_fn)(void *ctx, const struct pya_event *ev);

/* Which calls of things the analyzer cannot name (".NAME" events) the
 * caller wants: methods whose pya_method_bit() is in method_bits, and with
 * keyword_calls set every such call that has keyword arguments. Most method
 * calls of a file are of that kind; a filter spares reporting them. */
struct pya_filter {
	uint64_t method_bits;
	int keyword_calls;
};
/* A one-word hash of a method name (not NUL-terminated: n bytes). */
static inline uint64_t pya_method_bit(const char *name, size_t n)
{
	return n ? 1ULL << ((n * 7 + (unsigned char)name[0] + (unsigned char)name[n - 1]) & 63) : 1;
}

/* Analyzes one lexed file; events go to fn. Fills the metrics. filter may
 * be NULL: every event. */
void pya_analyze(struct pylex *lx, pya_event_fn fn, void *ctx, struct py_metrics *m,
		 const struct pya_filter *filter);

/* Internal: the scope tables (pyscope.c). */
enum pya_bind {
	PYA_BIND_NONE,
	PYA_BIND_REF,     /* s: a qualified module or function name */
	PYA_BIND_CONST,   /* s: a constant string */
	PYA_BIND_DECODED, /* the result of a decoding call */
	PYA_BIND_CODES,   /* s: a list of character codes, as the text they spell */
	PYA_BIND_NUM,     /* num: a constant number */
	PYA_BIND_LOCAL,   /* anything else defined here: shadows builtins */
	PYA_BIND_NS,      /* s: a module's namespace dict (globals(), vars(m), m.__dict__) */
	PYA_BIND_MODULES, /* sys.modules */
};

struct pya_binding {
	enum pya_bind kind;
	char *s;
	int dynamic;
	unsigned taint;   /* enum pya_taint: what outside data the value holds */
	int guess;        /* PYA_BIND_REF: a name nobody bound (see pya_resolve_name) */
	int ns_module;    /* PYA_BIND_NS: globals(), locals() or vars() of this module */
	long num;         /* PYA_BIND_NUM */
};

struct pya_scope;
struct pya_scope *pya_scope_new(size_t indent, struct pya_scope *parent);
/* Frees the scope and returns its parent. */
struct pya_scope *pya_scope_pop(struct pya_scope *sc);
size_t pya_scope_indent(const struct pya_scope *sc);
/* Binds name in this scope (copies name and b->s). */
void pya_scope_bind(struct pya_scope *sc, const char *name, size_t n,
		    const struct pya_binding *b);
/* Looks name up from this scope outward; NULL when unbound. */
const struct pya_binding *pya_scope_lookup(const struct pya_scope *sc, const char *name,
					    size_t n);

#endif
