/* Constant folding of strings for the analyzer: str.format and % of
 * constants, join, chr() sequences, reversal; values' memory. */
#include <stdio.h>
#include <string.h>

#include "pyanalyze_int.h"


void pya_val_release(struct pya_val *v)
{
	free(v->s);
	free(v->meth);
	for (size_t i = 0; i < v->n_items; i++)
		pya_val_clear(&v->items[i]);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

void pya_val_copy(struct pya_val *dst, const struct pya_val *src)
{
	*dst = *src;
	dst->s = src->s ? xstrdup(src->s) : NULL;
	dst->meth = src->meth ? xstrdup(src->meth) : NULL;
	dst->items = src->n_items ? xcalloc(src->n_items, sizeof(*dst->items)) : NULL;
	for (size_t i = 0; i < src->n_items; i++)
		pya_val_copy(&dst->items[i], &src->items[i]);
}

/* Python's str.format with positional/automatic fields of constants. */
char *pya_format_str(const char *fmt, const struct pya_val *args, size_t n)
{
	size_t cap = strlen(fmt) + 1, o = 0, next = 0;
	char *out = xmalloc(cap);

	for (const char *p = fmt; *p;) {
		const struct pya_val *a;
		if (p[0] == '{' && p[1] == '{') { out[o++] = '{'; p += 2; continue; }
		if (p[0] == '}' && p[1] == '}') { out[o++] = '}'; p += 2; continue; }
		if (*p != '{') { out[o++] = *p++; continue; }
		const char *e = strchr(p, '}');
		if (!e)
			goto fail;
		size_t idx = next++;
		if (e > p + 1) {
			if (p[1] < '0' || p[1] > '9')
				goto fail;
			idx = (size_t)strtoul(p + 1, NULL, 10);
		}
		if (idx >= n)
			goto fail;
		a = &args[idx];
		char *piece = a->k == PYA_V_STR ? xstrdup(a->s)
			    : a->k == PYA_V_NUM ? xasprintf("%ld", a->num) : NULL;
		if (!piece)
			goto fail;
		size_t k = strlen(piece);
		cap += k;
		out = xrealloc(out, cap);
		memcpy(out + o, piece, k);
		o += k;
		free(piece);
		p = e + 1;
	}
	out[o] = '\0';
	return out;
fail:
	free(out);
	return NULL;
}

/* "%s" % x and "%s%s" % (a, b) of constants. */
char *pya_percent_str(const char *fmt, const struct pya_val *v)
{
	const struct pya_val *args = v->k == PYA_V_LIST ? v->items : v;
	size_t n = v->k == PYA_V_LIST ? v->n_items : 1, next = 0, o = 0;
	size_t cap = strlen(fmt) + 1;
	char *out = xmalloc(cap);

	for (const char *p = fmt; *p;) {
		if (*p != '%') { out[o++] = *p++; continue; }
		if (p[1] == '%') { out[o++] = '%'; p += 2; continue; }
		if ((p[1] != 's' && p[1] != 'd' && p[1] != 'c' && p[1] != 'r') || next >= n)
			goto fail;
		const struct pya_val *a = &args[next++];
		char *piece = NULL;
		if (p[1] == 'c' && a->k == PYA_V_NUM && a->num > 0 && a->num < 0x110000) {
			char u[5];
			u[pylex_utf8_encode((uint32_t)a->num, u)] = '\0';
			piece = xstrdup(u);
		} else if (a->k == PYA_V_STR && p[1] != 'd') {
			piece = xstrdup(a->s);
		} else if (a->k == PYA_V_NUM && p[1] != 'c') {
			piece = xasprintf("%ld", a->num);
		}
		if (!piece)
			goto fail;
		size_t k = strlen(piece);
		cap += k;
		out = xrealloc(out, cap);
		memcpy(out + o, piece, k);
		o += k;
		free(piece);
		p += 2;
	}
	out[o] = '\0';
	return next == n ? out : (free(out), NULL);
fail:
	free(out);
	return NULL;
}

char *pya_join_list(const char *sep, const struct pya_val *v)
{
	size_t total = 1, o = 0, sl = strlen(sep);
	char *out;

	if (v->k == PYA_V_STR)
		return NULL;
	if (v->k != PYA_V_LIST)
		return NULL;
	for (size_t i = 0; i < v->n_items; i++) {
		if (v->items[i].k != PYA_V_STR)
			return NULL;
		total += strlen(v->items[i].s) + sl;
	}
	out = xmalloc(total);
	for (size_t i = 0; i < v->n_items; i++) {
		size_t k = strlen(v->items[i].s);
		if (i) {
			memcpy(out + o, sep, sl);
			o += sl;
		}
		memcpy(out + o, v->items[i].s, k);
		o += k;
	}
	out[o] = '\0';
	return out;
}

char *pya_join_chars(const char *sep, const char *s)
{
	size_t n = strlen(s), sl = strlen(sep), o = 0;

	if (sl && n > 4096 / (sl + 1))
		return NULL;
	char *out = xmalloc(n * (sl + 1) + 1);
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
			k++;
		if (i) {
			memcpy(out + o, sep, sl);
			o += sl;
		}
		memcpy(out + o, s + i, k - i);
		o += k - i;
		i = k;
	}
	out[o] = '\0';
	return out;
}

/* Turns a list of numbers into a list of one-character strings (map(chr, ...)). */
void pya_chr_list(struct pya_val *v)
{
	for (size_t i = 0; i < v->n_items; i++) {
		struct pya_val *it = &v->items[i];
		if (it->k == PYA_V_NUM && it->num > 0 && it->num < 0x110000) {
			char u[5];
			u[pylex_utf8_encode((uint32_t)it->num, u)] = '\0';
			pya_set_str(it, xstrdup(u));
		}
	}
}

char *pya_reverse_utf8(const char *s)
{
	size_t n = strlen(s), o = n;
	char *out = xmalloc(n + 1);

	out[n] = '\0';
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
			k++;
		o -= k - i;
		memcpy(out + o, s + i, k - i);
		i = k;
	}
	return out;
}

