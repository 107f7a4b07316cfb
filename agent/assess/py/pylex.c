/* The Python 3 tokenizer: one logical line at a time, explicit and implicit
 * line joining, indentation depth, every string prefix, f-strings whose
 * replacement fields are lexed as tokens in place. Bracket depth is a counter
 * and f-string nesting is capped, so no input can exhaust the stack. */
#include <errno.h>
#include <string.h>
#include <stdio.h>

#include "pylex.h"

/* Python 3.11 rejects f-strings nested deeper than this anyway. */
#define FSTRING_MAX_DEPTH 8

void pytok_vec_reset(struct pytok_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->t[i].owned)
			free((char *)v->t[i].s);
	v->n = 0;
}

void pytok_vec_free(struct pytok_vec *v)
{
	pytok_vec_reset(v);
	free(v->t);
	v->t = NULL;
	v->cap = 0;
}

static struct pytok *vec_push(struct pytok_vec *v)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 64;
		v->t = xrealloc(v->t, v->cap * sizeof(*v->t));
	}
	return &v->t[v->n++]; /* emit() sets every field */
}

int pylex_open(struct pylex *lx, const uint8_t *data, size_t len, const char **reason,
	       size_t *offset)
{
	memset(lx, 0, sizeof(*lx));
	lx->w_line = 1;
	lx->w_col = 1;
	lx->cap_indents = 16;
	lx->indents = xmalloc(lx->cap_indents * sizeof(size_t));
	lx->indents[0] = 0;
	lx->n_indents = 1;
	return pylex_detect_encoding(lx, data, len, reason, offset);
}

void pylex_close(struct pylex *lx)
{
	free(lx->decoded);
	free(lx->indents);
	free(lx->error);
	memset(lx, 0, sizeof(*lx));
}

/* Moves the position walker forward to off (offsets only grow). It sees
 * every byte of the file once, so it is the lexer's innermost loop: eight
 * bytes at a time while they are all printable ASCII (each one a column),
 * byte by byte for line ends and UTF-8. */
static void walk_to(struct pylex *lx, size_t off)
{
	const unsigned char *b = (const unsigned char *)lx->buf;
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	size_t i = lx->w_off;
	unsigned line = lx->w_line, col = lx->w_col;

	if (off < i) {
		/* Never expected; restart from the top rather than guess. */
		i = 0;
		line = 1;
		col = 1;
	}
	while (i < off) {
		uint64_t w;
		if (off - i >= 8) {
			memcpy(&w, b + i, 8);
			/* No byte below 14 ('\r' is 13) and none of 0x80 or more. */
			if ((((w - 14 * ones) | w) & high) == 0) {
				i += 8;
				col += 8;
				continue;
			}
		}
		unsigned char c = b[i];
		if ((unsigned char)(c - 14) < 0x80 - 14) { /* ASCII, no line end */
			col++;
			i++;
			continue;
		}
		if (c == '\n' || (c == '\r' && (i + 1 >= lx->len || b[i + 1] != '\n'))) {
			line++;
			col = 1;
		} else if ((c & 0xC0) != 0x80 && c != '\r') {
			col++;
		}
		i++;
	}
	lx->w_off = off;
	lx->w_line = line;
	lx->w_col = col;
}

/* Steps the walker, which emit() left at the start of the token, over the
 * rest of it: printable ASCII bytes, one column each, no line end. */
static void walk_past_ascii(struct pylex *lx, size_t end)
{
	lx->w_col += (unsigned)(end - lx->w_off);
	lx->w_off = end;
}

static void set_error(struct pylex *lx, size_t off, const char *msg)
{
	if (lx->error)
		return;
	walk_to(lx, off);
	lx->error = xstrdup(msg);
	lx->error_line = lx->w_line;
	lx->error_col = lx->w_col;
}

void pylex_error_at(struct pylex *lx, unsigned line, unsigned col, const char *msg)
{
	if (lx->error)
		return;
	lx->error = xstrdup(msg);
	lx->error_line = line;
	lx->error_col = col;
}

/* Brackets: pushed open, matched on close; a closer without an opener or
 * of another kind is Python's error at that closer. */
static void bracket_open(struct pylex *lx, char c, size_t off)
{
	if (lx->n_brackets < PYLEX_MAX_BRACKETS) {
		lx->bracket[lx->n_brackets] = c;
		lx->bracket_off[lx->n_brackets] = off;
	}
	lx->n_brackets++;
}

static void bracket_close(struct pylex *lx, char c, size_t off)
{
	static const char open_of[128] = { [')'] = '(', [']'] = '[', ['}'] = '{' };
	char msg[64];

	if (lx->n_brackets == 0) {
		snprintf(msg, sizeof(msg), "unmatched '%c'", c);
		set_error(lx, off, msg);
		return;
	}
	lx->n_brackets--;
	if (lx->n_brackets < PYLEX_MAX_BRACKETS && lx->bracket[lx->n_brackets] != open_of[(int)c]) {
		snprintf(msg, sizeof(msg), "closing parenthesis '%c' does not match opening "
			 "parenthesis '%c'", c, lx->bracket[lx->n_brackets]);
		set_error(lx, off, msg);
	}
}

static struct pytok *emit(struct pylex *lx, struct pytok_vec *v, enum pytok_kind kind,
			  size_t off, const char *s, size_t n)
{
	struct pytok *t = vec_push(v);
	walk_to(lx, off);
	*t = (struct pytok){ .kind = kind, .line = lx->w_line, .col = lx->w_col, .s = s, .n = n };
	return t;
}

/* 1: may start a name (letters, '_', any non-ASCII byte), 2: digits. */
static const unsigned char name_class[256] = {
	['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['_'] = 1, [0x80 ... 0xFF] = 1, ['0' ... '9'] = 2,
};

static int is_name_start(unsigned char c)
{
	return name_class[c] == 1;
}

static int is_name_char(unsigned char c)
{
	return name_class[c] != 0;
}

static int is_newline(char c)
{
	return c == '\n' || c == '\r';
}

/* The offset of the line end after p (or len): comments end there. */
static size_t line_end(const char *b, size_t len, size_t p)
{
	const char *nl = memchr(b + p, '\n', len - p);
	size_t e = nl ? (size_t)(nl - b) : len;
	const char *cr = memchr(b + p, '\r', e - p); /* old Mac line ends */
	return cr ? (size_t)(cr - b) : e;
}

static size_t skip_newline(const char *b, size_t len, size_t p)
{
	if (b[p] == '\r' && p + 1 < len && b[p + 1] == '\n')
		return p + 2;
	return p + 1;
}

/* String prefix letters: any case and order of r with one of b, f, u. */
static int string_prefix(const char *s, size_t n, unsigned *flags)
{
	unsigned f = 0;
	int r = 0, other = 0;

	if (n > 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		switch (s[i] | 0x20) {
		case 'r': if (r++) return 0; f |= PYT_F_RAW; break;
		case 'b': if (other++) return 0; f |= PYT_F_BYTES; break;
		case 'f': if (other++) return 0; f |= PYT_F_FSTRING; break;
		case 'u': if (other++ || n > 1) return 0; break;
		default: return 0;
		}
	}
	*flags = f;
	return 1;
}

static size_t lex_range(struct pylex *lx, struct pytok_vec *v, size_t p, size_t end,
			int fdepth);

/* Finds the end of a replacement field's expression: the '}', '!' or ':' at
 * bracket depth 0 that is not inside a nested string. */
static size_t fstring_expr_end(const char *b, size_t p, size_t end)
{
	long depth = 0;

	while (p < end) {
		char c = b[p];
		if (c == '\'' || c == '"') {
			char q = c;
			p++;
			while (p < end && b[p] != q)
				p += (b[p] == '\\') ? 2 : 1;
			p++;
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']') && depth > 0)
			depth--;
		else if (c == '}' && depth > 0)
			depth--;
		else if (depth == 0 && (c == '}' || c == ':' ||
					(c == '!' && p + 1 < end && b[p + 1] != '=') ||
					(c == '=' && p + 1 < end && b[p + 1] == '}')))
			return p;
		p++;
	}
	return end;
}

/* Lexes the replacement fields of an f-string body [p, end). */
static void lex_fstring_fields(struct pylex *lx, struct pytok_vec *v, size_t p, size_t end,
			       int fdepth)
{
	const char *b = lx->buf;

	while (p < end) {
		if (b[p] == '{' && p + 1 < end && b[p + 1] == '{') {
			p += 2;
			continue;
		}
		if (b[p] != '{') {
			p++;
			continue;
		}
		size_t e = fstring_expr_end(b, p + 1, end);
		if (fdepth < FSTRING_MAX_DEPTH) {
			lex_range(lx, v, p + 1, e, fdepth + 1);
			/* Separates consecutive fields like a comma would. */
			emit(lx, v, PYT_OP, e < end ? e : end - 1, ",", 1);
		}
		/* What ends the field ('=', "!r", '}') is passed over by the loop;
		 * a format spec can hold nested fields: lexed by the loop too. */
		p = e;
	}
}

/* Lexes one string literal starting at its quote; returns the offset after. */
static size_t lex_string(struct pylex *lx, struct pytok_vec *v, size_t start, size_t p,
			 size_t end, unsigned flags, int fdepth)
{
	const char *b = lx->buf;
	char q = b[p];
	int triple = p + 2 < end && b[p + 1] == q && b[p + 2] == q;
	size_t body = p + (triple ? 3 : 1), i = body, body_end;
	struct pytok *t;

	for (;;) {
		if (triple && i < end) {
			/* Docstrings are long: straight to the next quote or
			 * backslash, the only bytes that matter inside them. */
			const char *qp = memchr(b + i, q, end - i);
			size_t qi = qp ? (size_t)(qp - b) : end;
			const char *bs = memchr(b + i, '\\', qi - i);
			i = bs ? (size_t)(bs - b) : qi;
		}
		if (i >= end || (!triple && is_newline(b[i]))) {
			set_error(lx, start, "unterminated string literal");
			flags |= PYT_F_UNTERMINATED;
			body_end = i;
			break;
		}
		if (b[i] == '\\') {
			i += 2;
			if (i > end)
				i = end;
			continue;
		}
		if (b[i] == q && (!triple || (i + 2 < end && b[i + 1] == q && b[i + 2] == q))) {
			body_end = i;
			i += triple ? 3 : 1;
			break;
		}
		i++;
	}
	if (triple)
		flags |= PYT_F_TRIPLE;
	if (flags & PYT_F_FSTRING) {
		emit(lx, v, PYT_FSTRING_START, start, b + start, body - start);
		lex_fstring_fields(lx, v, body, body_end, fdepth);
		t = emit(lx, v, PYT_FSTRING_END, body_end, b + body_end, 0);
		(void)t;
		return i;
	}
	t = emit(lx, v, PYT_STRING, start, b + body, body_end - body);
	t->flags = flags;
	/* Most literals have no escape: their value is their text. */
	if (!(flags & PYT_F_RAW) && memchr(b + body, '\\', body_end - body)) {
		t->s = pylex_unescape(b + body, body_end - body, flags, &t->n);
		t->owned = 1;
	}
	return i;
}

static size_t lex_number(const char *b, size_t p, size_t end)
{
	int hex = p + 1 < end && b[p] == '0' && (b[p + 1] | 0x20) == 'x';

	while (p < end) {
		char c = b[p];
		if (is_name_char((unsigned char)c) || c == '.') {
			p++;
			if (!hex && (c == 'e' || c == 'E') && p + 1 < end &&
			    (b[p] == '+' || b[p] == '-') && b[p + 1] >= '0' && b[p + 1] <= '9')
				p++;
			continue;
		}
		break;
	}
	return p;
}

/* Python's operators of two and three bytes: "**=", "//=", ">>=", "<<=",
 * "...", "->", "**", "//", "<<", ">>", and '=' after any of the bytes
 * below but '.' ("!=", "%=", ":=", "==", ...). Returns the length of the
 * operator at p. */
static size_t lex_operator(const char *b, size_t p, size_t end)
{
	static const char multi[256] = { ['*'] = 1, ['/'] = 1, ['>'] = 1, ['<'] = 1, ['.'] = 1,
					 ['!'] = 1, ['%'] = 1, ['&'] = 1, ['-'] = 1, ['+'] = 1,
					 [':'] = 1, ['='] = 1, ['@'] = 1, ['^'] = 1, ['|'] = 1 };
	char c = b[p];

	if (multi[(unsigned char)c]) {
		char c1 = p + 1 < end ? b[p + 1] : 0, c2 = p + 2 < end ? b[p + 2] : 0;
		int doubled = c1 == c && (c == '*' || c == '/' || c == '<' || c == '>');
		if ((doubled && c2 == '=') || (c == '.' && c1 == '.' && c2 == '.'))
			return 3;
		if ((c1 == '=' && c != '.') || doubled || (c == '-' && c1 == '>'))
			return 2;
	}
	/* A lone byte, or a whole code point when it is not ASCII. */
	if ((unsigned char)c < 0x80)
		return 1;
	size_t k = p + 1;
	while (k < end && ((unsigned char)b[k] & 0xC0) == 0x80)
		k++;
	return k - p;
}

/* Lexes [p, end) as the inside of brackets (newlines do not end anything).
 * Used for f-string fields. Returns end. */
static size_t lex_range(struct pylex *lx, struct pytok_vec *v, size_t p, size_t end, int fdepth);

/* Lexes one token at p; returns the new offset. *depth tracks brackets. */
static size_t lex_token(struct pylex *lx, struct pytok_vec *v, size_t p, size_t end,
			long *depth, int fdepth)
{
	const char *b = lx->buf;
	unsigned char c = (unsigned char)b[p];

	if (is_name_start(c)) {
		size_t s = p, n;
		unsigned flags, wide = 0;
		while (p < end && is_name_char((unsigned char)b[p]))
			wide |= (unsigned char)b[p++] & 0x80;
		n = p - s;
		if (p < end && (b[p] == '\'' || b[p] == '"') && string_prefix(b + s, n, &flags))
			return lex_string(lx, v, s, p, end, flags, fdepth);
		struct pytok *t = emit(lx, v, PYT_NAME, s, b + s, n);
		size_t nn;
		/* NFKC leaves ASCII as it is. */
		char *norm = wide ? pylex_normalize_name(b + s, n, &nn) : NULL;
		if (norm) {
			t->s = norm;
			t->n = nn;
			t->owned = 1;
		}
		if (!wide)
			walk_past_ascii(lx, p);
		return p;
	}
	if ((c >= '0' && c <= '9') || (c == '.' && p + 1 < end && b[p + 1] >= '0' && b[p + 1] <= '9')) {
		size_t e = lex_number(b, p, end);
		emit(lx, v, PYT_NUMBER, p, b + p, e - p);
		return e;
	}
	if (c == '\'' || c == '"')
		return lex_string(lx, v, p, p, end, 0, fdepth);
	size_t n = lex_operator(b, p, end);
	if (n == 1) {
		switch (c) {
		case '(': case '[': case '{':
			(*depth)++;
			bracket_open(lx, (char)c, p);
			break;
		case ')': case ']': case '}':
			if (*depth > 0)
				(*depth)--;
			bracket_close(lx, (char)c, p);
			break;
		case '$': case '?': case '`':
			set_error(lx, p, "invalid character");
			break;
		case '!':
			set_error(lx, p, "invalid syntax: '!' alone");
			break;
		case '\\':
			set_error(lx, p, "unexpected character after line continuation character");
			break;
		default:
			break;
		}
	}
	emit(lx, v, PYT_OP, p, b + p, n);
	if (c > '\r' && c < 0x80)
		walk_past_ascii(lx, p + n);
	return p + n;
}

static size_t lex_range(struct pylex *lx, struct pytok_vec *v, size_t p, size_t end, int fdepth)
{
	const char *b = lx->buf;
	long depth = 1;

	while (p < end) {
		char c = b[p];
		if (c == ' ' || c == '\t' || c == '\f' || is_newline(c) || c == '\\') {
			p++;
			continue;
		}
		if (c == '#') {
			p = line_end(b, end, p);
			continue;
		}
		p = lex_token(lx, v, p, end, &depth, fdepth);
	}
	return end;
}

/* Measures the indentation of the line at p (tabs to multiples of 8). */
static size_t measure_indent(const char *b, size_t len, size_t *p)
{
	size_t col = 0;

	while (*p < len) {
		if (b[*p] == ' ')
			col++;
		else if (b[*p] == '\t')
			col = (col / 8 + 1) * 8;
		else if (b[*p] == '\f')
			col = 0;
		else
			break;
		(*p)++;
	}
	return col;
}

/* Python's indentation errors, before set_indent() takes the new depth. */
static void check_indent(struct pylex *lx, size_t col, size_t off)
{
	size_t top = lx->indents[lx->n_indents - 1];

	if (col > top && !lx->expect_block) {
		set_error(lx, off, "unexpected indent");
	} else if (col <= top && lx->expect_block) {
		set_error(lx, off, "expected an indented block");
	} else if (col < top) {
		size_t k = lx->n_indents;
		while (k > 1 && lx->indents[k - 1] > col)
			k--;
		if (lx->indents[k - 1] != col)
			set_error(lx, off, "unindent does not match any outer indentation level");
	}
}

static void set_indent(struct pylex *lx, size_t col, struct pytok_vec *v)
{
	while (lx->n_indents > 1 && lx->indents[lx->n_indents - 1] > col)
		lx->n_indents--;
	if (lx->indents[lx->n_indents - 1] < col) {
		if (lx->n_indents == lx->cap_indents) {
			lx->cap_indents *= 2;
			lx->indents = xrealloc(lx->indents, lx->cap_indents * sizeof(size_t));
		}
		lx->indents[lx->n_indents++] = col;
	}
	v->indent = lx->n_indents - 1;
	if (v->indent > lx->max_indent)
		lx->max_indent = v->indent;
}

int pylex_statement(struct pylex *lx, struct pytok_vec *v)
{
	const char *b = lx->buf;
	size_t p = lx->p, len = lx->len;
	long depth = 0;

	pytok_vec_reset(v);
	/* Skip blank and comment-only lines; take the indentation of the first
	 * line that holds a token. */
	for (;;) {
		if (p >= len) {
			lx->p = p;
			walk_to(lx, len);
			lx->lines = lx->w_line - (len > 0 && is_newline(b[len - 1]) ? 1 : 0);
			if (len == 0)
				lx->lines = 0;
			return 0;
		}
		size_t col = measure_indent(b, len, &p);
		if (p < len && b[p] == '#')
			p = line_end(b, len, p);
		if (p < len && is_newline(b[p])) {
			p = skip_newline(b, len, p);
			continue;
		}
		if (p >= len)
			continue;
		check_indent(lx, col, p);
		set_indent(lx, col, v);
		break;
	}
	walk_to(lx, p);
	v->line = lx->w_line;
	while (p < len) {
		char c = b[p];
		if (c == ' ' || c == '\t' || c == '\f') {
			p++;
			continue;
		}
		if (c == '#') {
			p = line_end(b, len, p);
			continue;
		}
		if (c == '\\' && p + 1 < len && is_newline(b[p + 1])) {
			p = skip_newline(b, len, p + 1);
			continue;
		}
		if (is_newline(c)) {
			p = skip_newline(b, len, p);
			if (depth == 0)
				break;
			continue;
		}
		p = lex_token(lx, v, p, len, &depth, 0);
	}
	lx->p = p;
	if (lx->n_brackets) {
		/* Only the end of the file ends a statement with open brackets. */
		char msg[48];
		size_t k = lx->n_brackets <= PYLEX_MAX_BRACKETS ? lx->n_brackets - 1 : PYLEX_MAX_BRACKETS - 1;
		snprintf(msg, sizeof(msg), "'%c' was never closed", lx->bracket[k]);
		set_error(lx, lx->bracket_off[k], msg);
		lx->n_brackets = 0;
	}
	lx->expect_block = v->n > 0 && pytok_is(&v->t[v->n - 1], PYT_OP, ":");
	return 1;
}
