/* A Python 3 lexer for the assessor: encoding detection (BOM, PEP 263
 * cookie), strict UTF-8 validation, and tokens one logical line at a time so
 * that memory stays bounded by the longest statement, never by the file.
 *
 * Positions: lines are 1-based, columns are 1-based and count code points. */
#ifndef MAI_PYLEX_H
#define MAI_PYLEX_H

#include <stddef.h>
#include <stdint.h>

#include "macro.h"

enum pytok_kind {
	PYT_NAME,        /* s: the NFKC-normalized identifier */
	PYT_NUMBER,
	PYT_STRING,      /* s: the decoded value (f-strings: their literal parts) */
	PYT_OP,          /* s: the operator, or one unknown character */
	PYT_FSTRING_START, /* the expressions of an f-string follow, then: */
	PYT_FSTRING_END,
};

enum {
	PYT_F_BYTES = 1 << 0,
	PYT_F_RAW = 1 << 1,
	PYT_F_FSTRING = 1 << 2,
	PYT_F_UNTERMINATED = 1 << 3,
	PYT_F_TRIPLE = 1 << 4,
};

struct pytok {
	enum pytok_kind kind;
	unsigned flags;
	unsigned line, col;
	const char *s;   /* not NUL-terminated; points into the source or owned */
	size_t n;
	int owned;       /* s was allocated for this token */
};

/* The tokens of one logical line. */
struct pytok_vec {
	struct pytok *t;
	size_t n, cap;
	size_t indent;   /* block depth of the statement (0 at module level) */
	unsigned line;   /* first line of the statement */
};

void pytok_vec_reset(struct pytok_vec *v);
void pytok_vec_free(struct pytok_vec *v);
/* Is t this kind with exactly this text? Always inlined: with a literal s
 * the length folds away, and the analyzer asks this for nearly every token
 * (a strlen call per question was 6% of a whole run). Tables of words use
 * pytok_is_n with lengths computed once. */
static inline __attribute__((always_inline)) int pytok_is_n(const struct pytok *t,
							    enum pytok_kind kind,
							    const char *s, size_t n)
{
	return t->kind == kind && t->n == n && t->s[0] == s[0] && __builtin_memcmp(t->s, s, n) == 0;
}
static inline __attribute__((always_inline)) int pytok_is(const struct pytok *t,
							  enum pytok_kind kind, const char *s)
{
	return pytok_is_n(t, kind, s, __builtin_strlen(s));
}

enum pylex_encoding_status {
	PYLEX_ENC_OK,
	PYLEX_ENC_ABUSABLE,  /* utf-7, utf-16/32 and the like: text can hide code */
	PYLEX_ENC_UNKNOWN,   /* a codec the assessor does not know */
	PYLEX_ENC_CONFLICT,  /* a UTF-8 BOM with a different cookie */
};

struct pylex {
	const char *buf;     /* UTF-8 text being lexed */
	size_t len, p;
	char *decoded;       /* owned copy when the file was not UTF-8 */
	/* Position walker: line and column at offset w_off, moved forward only. */
	size_t w_off;
	unsigned w_line, w_col;
	size_t *indents;
	size_t n_indents, cap_indents;
	size_t max_indent;
	size_t lines;
	char encoding[64];   /* normalized codec name, "utf-8" by default */
	enum pylex_encoding_status encoding_status;
	unsigned encoding_line;
	/* The first syntax error Python would stop at: an unterminated
	 * string, a bracket never closed or closed by another kind, an
	 * invalid character, an indentation that matches no block, a block
	 * header without its ':' (reported by the analyzer). */
	char *error;
	unsigned error_line, error_col;
	/* Open brackets of the current statement: kind and offset, the
	 * first PYLEX_MAX_BRACKETS of them (deeper ones are only counted). */
	char bracket[32];
	size_t bracket_off[32];
	size_t n_brackets;
	int expect_block;    /* the last statement ended with ':' */
};
#define PYLEX_MAX_BRACKETS 32

/* Checks and decodes a snapshot. Returns 0, or -EINVAL when the file is not
 * source text: *reason (static string) and *offset (byte offset in data) say
 * why and where. pylex_close() releases what it holds in both cases. */
int pylex_open(struct pylex *lx, const uint8_t *data, size_t len, const char **reason,
	       size_t *offset) _must_check_;
void pylex_close(struct pylex *lx);

/* Appends the tokens of the next logical line to v (reset first). Returns 1
 * when a statement was read, 0 at the end of the file. */
int pylex_statement(struct pylex *lx, struct pytok_vec *v);

/* Records a syntax error at a position, unless one is known already. */
void pylex_error_at(struct pylex *lx, unsigned line, unsigned col, const char *msg);

/* Internal to the lexer's files. */
int pylex_detect_encoding(struct pylex *lx, const uint8_t *data, size_t len,
			  const char **reason, size_t *offset);
int pylex_utf8_decode(const char *s, size_t len, size_t *i, uint32_t *cp);
size_t pylex_utf8_encode(uint32_t cp, char out[4]);
/* Decodes a string literal's body (escapes unless raw). Returns a new buffer. */
char *pylex_unescape(const char *s, size_t n, unsigned flags, size_t *out_len);
/* NFKC of an identifier: NULL when it is unchanged, else a new string. */
char *pylex_normalize_name(const char *s, size_t n, size_t *out_len);

#endif
