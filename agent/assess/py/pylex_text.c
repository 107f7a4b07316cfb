/* The text side of the lexer: encodings (BOM, PEP 263 cookie), strict UTF-8,
 * string escapes and NFKC of identifiers. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "hash.h"
#include "pylex.h"
#include "pynfkc.h"

const char *pynfkc_lookup(uint32_t cp)
{
	size_t lo = 0, hi = pynfkc_table_len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pynfkc_table[mid].cp == cp)
			return pynfkc_table[mid].utf8;
		if (pynfkc_table[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF),
 * as Python requires of source files. Returns 0 or -EILSEQ; *i advances. */
int pylex_utf8_decode(const char *str, size_t len, size_t *i, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t k = *i;
	unsigned char c = s[k];
	uint32_t v, min;
	int n;

	if (c < 0x80) {
		*cp = c;
		*i = k + 1;
		return 0;
	}
	if ((c & 0xE0) == 0xC0) {
		n = 1; v = c & 0x1F; min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		n = 2; v = c & 0x0F; min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		n = 3; v = c & 0x07; min = 0x10000;
	} else {
		return -EILSEQ;
	}
	if (k + (size_t)n >= len)
		return -EILSEQ;
	for (int j = 1; j <= n; j++) {
		if ((s[k + j] & 0xC0) != 0x80)
			return -EILSEQ;
		v = (v << 6) | (s[k + j] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return -EILSEQ;
	*cp = v;
	*i = k + n + 1;
	return 0;
}

size_t pylex_utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* cp1252's 0x80..0x9F; 0 marks the five undefined bytes (decoding error). */
static const uint16_t cp1252_high[32] = {
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
};

enum codec { CODEC_UTF8, CODEC_LATIN1, CODEC_CP1252, CODEC_ASCII, CODEC_OTHER };

static enum codec codec_classify(const char *name, enum pylex_encoding_status *st)
{
	static const char *const utf8[] = { "utf-8", "utf8", "utf-8-sig", "u8", "utf" };
	static const char *const latin1[] = { "latin-1", "latin1", "iso-8859-1", "iso8859-1",
					      "iso-latin-1", "l1", "cp819", "8859", "latin" };
	static const char *const cp1252[] = { "cp1252", "windows-1252" };
	static const char *const ascii[] = { "ascii", "us-ascii", "646" };
	/* Codecs in which bytes that look harmless decode to code, or that
	 * Python cannot even use for source: a file that asks for one is hiding. */
	static const char *const abusable[] = { "utf-7", "utf7", "u7", "unicode-1-1-utf-7",
						"utf-16", "utf16", "utf-16-le", "utf-16-be",
						"utf-32", "utf32", "utf-32-le", "utf-32-be",
						"rot-13", "rot13", "uu", "base64", "hex", "zlib",
						"bz2", "quopri", "punycode", "idna", "raw-unicode-escape",
						"unicode-escape", "undefined" };

	*st = PYLEX_ENC_OK;
	for (size_t i = 0; i < ARRAY_SIZE(utf8); i++)
		if (strcmp(name, utf8[i]) == 0 || strncmp(name, "utf-8-", 6) == 0)
			return CODEC_UTF8;
	for (size_t i = 0; i < ARRAY_SIZE(latin1); i++)
		if (strcmp(name, latin1[i]) == 0 || strncmp(name, "latin-1-", 8) == 0 ||
		    strncmp(name, "iso-8859-1-", 11) == 0)
			return CODEC_LATIN1;
	for (size_t i = 0; i < ARRAY_SIZE(cp1252); i++)
		if (strcmp(name, cp1252[i]) == 0)
			return CODEC_CP1252;
	for (size_t i = 0; i < ARRAY_SIZE(ascii); i++)
		if (strcmp(name, ascii[i]) == 0)
			return CODEC_ASCII;
	*st = PYLEX_ENC_UNKNOWN;
	for (size_t i = 0; i < ARRAY_SIZE(abusable); i++)
		if (strcmp(name, abusable[i]) == 0)
			*st = PYLEX_ENC_ABUSABLE;
	return CODEC_OTHER;
}

/* Looks for "coding[:=]\s*([-\w.]+)" in a comment line (PEP 263). */
static int find_cookie(const uint8_t *line, size_t n, char out[64])
{
	size_t i = 0;

	while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f'))
		i++;
	if (i >= n || line[i] != '#')
		return 0;
	for (; i + 7 < n; i++) {
		if (memcmp(line + i, "coding", 6) != 0 || (line[i + 6] != ':' && line[i + 6] != '='))
			continue;
		size_t k = i + 7, o = 0;
		while (k < n && (line[k] == ' ' || line[k] == '\t'))
			k++;
		while (k < n && o < 63 && (isalnum(line[k]) || line[k] == '-' || line[k] == '_' ||
					   line[k] == '.')) {
			char c = (char)tolower(line[k++]);
			out[o++] = c == '_' ? '-' : c;
		}
		out[o] = '\0';
		return o > 0;
	}
	return 0;
}

static int blank_or_comment(const uint8_t *line, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (line[i] == '#')
			return 1;
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\f' && line[i] != '\r')
			return 0;
	}
	return 1;
}

int pylex_detect_encoding(struct pylex *lx, const uint8_t *data, size_t len,
			  const char **reason, size_t *offset)
{
	size_t start = 0;
	int bom = len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF;
	enum codec codec = CODEC_UTF8;
	const uint8_t *nul = memchr(data, '\0', len);

	if (nul) {
		*reason = "NUL byte: this is not Python source text";
		*offset = (size_t)(nul - data);
		return -EINVAL;
	}
	if (bom)
		start = 3;
	strcpy(lx->encoding, "utf-8");
	lx->encoding_status = PYLEX_ENC_OK;
	/* The cookie may be on line 1, or on line 2 when line 1 is a comment. */
	for (int ln = 0, pos = (int)start; ln < 2 && (size_t)pos < len; ln++) {
		const uint8_t *eol = memchr(data + pos, '\n', len - (size_t)pos);
		size_t n = eol ? (size_t)(eol - (data + pos)) : len - (size_t)pos;
		char name[64];
		if (find_cookie(data + pos, n, name)) {
			enum pylex_encoding_status st;
			snprintf(lx->encoding, sizeof(lx->encoding), "%s", name);
			lx->encoding_line = (unsigned)ln + 1;
			codec = codec_classify(name, &st);
			lx->encoding_status = st;
			if (bom && codec != CODEC_UTF8)
				lx->encoding_status = PYLEX_ENC_CONFLICT;
			break;
		}
		if (!blank_or_comment(data + pos, n) || !eol)
			break;
		pos += (int)n + 1;
	}
	if (codec == CODEC_UTF8 || codec == CODEC_ASCII || codec == CODEC_OTHER) {
		/* Unknown codecs are lexed as UTF-8 on a best-effort basis: their
		 * finding already blocks the file. */
		for (size_t i = start; i < len;) {
			uint32_t cp;
			size_t at = i;
			/* ASCII fast path, eight bytes at a time. */
			while (i + 8 <= len) {
				uint64_t w;
				memcpy(&w, data + i, 8);
				if (w & 0x8080808080808080ULL)
					break;
				i += 8;
			}
			if (i >= len)
				break;
			at = i;
			if ((unsigned char)data[i] < 0x80) {
				i++;
				continue;
			}
			if (codec == CODEC_ASCII) {
				*reason = "byte outside ASCII in a file that declares ascii";
				*offset = at;
				return -EINVAL;
			}
			if (pylex_utf8_decode((const char *)data, len, &i, &cp) < 0) {
				*reason = "invalid UTF-8: save the file as UTF-8 or declare its encoding "
					  "in a '# -*- coding: NAME -*-' line";
				*offset = at;
				return -EINVAL;
			}
		}
		lx->buf = (const char *)data + start;
		lx->len = len - start;
		return 0;
	}
	/* Single-byte codecs: decode into UTF-8. */
	lx->decoded = xmalloc(len * 3 + 1);
	size_t o = 0;
	for (size_t i = start; i < len; i++) {
		uint32_t cp = data[i];
		if (codec == CODEC_CP1252 && cp >= 0x80 && cp < 0xA0) {
			cp = cp1252_high[cp - 0x80];
			if (!cp) {
				*reason = "byte undefined in cp1252";
				*offset = i;
				return -EINVAL;
			}
		}
		o += pylex_utf8_encode(cp, lx->decoded + o);
	}
	lx->decoded[o] = '\0';
	lx->buf = lx->decoded;
	lx->len = o;
	return 0;
}

/* Escapes as Python decodes them; bytes' \xNN become U+00NN so that a folded
 * bytes literal reads like its latin-1 text. Unknown escapes stay as written. */
char *pylex_unescape(const char *s, size_t n, unsigned flags, size_t *out_len)
{
	char *out = xmalloc(n + 1);
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		if (s[i] != '\\' || (flags & PYT_F_RAW) || i + 1 >= n) {
			out[o++] = s[i++];
			continue;
		}
		char c = s[i + 1];
		uint32_t cp = 0;
		int digits = 0, base = 16, have = 1;
		i += 2;
		switch (c) {
		case '\n': have = 0; break;
		case '\r': have = 0; if (i < n && s[i] == '\n') i++; break;
		case 'n': cp = '\n'; break;
		case 't': cp = '\t'; break;
		case 'r': cp = '\r'; break;
		case 'a': cp = 7; break;
		case 'b': cp = 8; break;
		case 'f': cp = 12; break;
		case 'v': cp = 11; break;
		case '\\': case '\'': case '"': cp = (unsigned char)c; break;
		case 'x': digits = 2; break;
		case 'u': digits = (flags & PYT_F_BYTES) ? -1 : 4; break;
		case 'U': digits = (flags & PYT_F_BYTES) ? -1 : 8; break;
		default:
			if (c >= '0' && c <= '7') {
				base = 8;
				cp = (uint32_t)(c - '0');
				for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
					cp = cp * 8 + (uint32_t)(s[i++] - '0');
			} else {
				digits = -1;
			}
		}
		if (digits < 0) {
			out[o++] = '\\';
			out[o++] = c;
			continue;
		}
		if (digits > 0 && base == 16) {
			int ok = 1;
			for (int k = 0; k < digits; k++) {
				int h = i < n ? hash_hex_digit_value(s[i]) : -1;
				if (h < 0) {
					ok = 0;
					break;
				}
				cp = cp * 16 + (uint32_t)h;
				i++;
			}
			if (!ok || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
				continue;
		}
		if (have) {
			char u[4];
			size_t k = pylex_utf8_encode(cp, u);
			/* An escape never encodes to more bytes than it takes. */
			memcpy(out + o, u, k);
			o += k;
		}
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}

char *pylex_normalize_name(const char *s, size_t n, size_t *out_len)
{
	size_t i = 0, o = 0;
	char *out;
	int changed = 0;

	for (size_t k = 0; k < n; k++)
		if ((unsigned char)s[k] >= 0x80)
			changed = 1;
	if (!changed)
		return NULL;
	/* NFKC expands one code point to at most 18 code points (U+FDFA). */
	out = xmalloc(n * 18 + 1);
	changed = 0;
	while (i < n) {
		size_t at = i;
		uint32_t cp;
		const char *m;
		if (pylex_utf8_decode(s, n, &i, &cp) < 0) {
			out[o++] = s[at];
			i = at + 1;
			continue;
		}
		m = cp >= 0x80 ? pynfkc_lookup(cp) : NULL;
		if (m) {
			size_t k = strlen(m);
			memcpy(out + o, m, k);
			o += k;
			changed = 1;
		} else {
			memcpy(out + o, s + at, i - at);
			o += i - at;
		}
	}
	if (!changed) {
		free(out);
		return NULL;
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}
