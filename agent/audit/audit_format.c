#include "audit_format.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "hash.h"
#include "macro.h"
#include "merkle.h"

void audit_format_now(char out[64])
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000);
}

char *audit_canonical_json(const json_t *json)
{
	return json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
}

/* The encoded length of the n bytes of UTF-8 at s, quotes included, as
 * jansson writes them with JSON_ENSURE_ASCII: \" \\ \b \f \n \r \t take
 * two bytes, other control characters and every character past U+007F six
 * (\uXXXX), and those past U+FFFF twelve (a surrogate pair). */
static size_t string_size(const char *s, size_t n)
{
	size_t size = 2;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			size += c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' ||
					c == '\r' || c == '\t' ? 2 : c < 0x20 ? 6 : 1;
			i++;
		} else if (c < 0xe0) {
			size += 6;
			i += 2;
		} else if (c < 0xf0) {
			size += 6;
			i += 3;
		} else {
			size += 12;
			i += 4;
		}
	}
	return size;
}

size_t audit_canonical_size(const json_t *json)
{
	size_t size = 0, i;
	const char *key;
	json_t *v;
	if (!json)
		return 0;
	switch (json_typeof(json)) {
	case JSON_STRING:
		return string_size(json_string_value(json), json_string_length(json));
	case JSON_OBJECT:
		size = 2 + (json_object_size(json) ? json_object_size(json) - 1 : 0);
		json_object_foreach((json_t *)json, key, v) {
			size_t one = audit_canonical_size(v);
			if (!one)
				return 0;
			size += string_size(key, strlen(key)) + 1 + one;
		}
		return size;
	case JSON_ARRAY:
		size = 2 + (json_array_size(json) ? json_array_size(json) - 1 : 0);
		json_array_foreach(json, i, v) {
			size_t one = audit_canonical_size(v);
			if (!one)
				return 0;
			size += one;
		}
		return size;
	default: {
		/* A number, true, false or null: short, as jansson writes it. */
		_cleanup_free_ char *s = audit_canonical_json(json);
		return s ? strlen(s) : 0;
	}
	}
}

char *audit_format_body(uint64_t seq, const char *type, const json_t *fields, const char *time)
{
	json_t *o = json_object();
	json_object_set_new(o, "seq", json_integer((json_int_t)seq));
	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "time", json_string(time));
	json_object_set(o, "fields", fields ? (json_t *)fields : json_object());
	if (!fields)
		json_decref(json_object_get(o, "fields"));
	char *s = audit_canonical_json(o);
	json_decref(o);
	return s;
}

void audit_format_line(const uint8_t prev[AUDIT_HASH_LEN], uint64_t seq, uint64_t ckpt,
		       const char *body, char **line, size_t *len, uint8_t hash[AUDIT_HASH_LEN])
{
	char prev_hex[65], entry_hex[65];
	hash_to_hex(prev, AUDIT_HASH_LEN, prev_hex);
	/* 64 placeholder bytes for the entry hash, filled once the leaf is known. */
	char *s = xasprintf("%064d %s %012llu %012llu %s\n", 0, prev_hex, (unsigned long long)seq,
			    (unsigned long long)ckpt, body);
	size_t n = strlen(s);
	merkle_leaf_hash(s + AUDIT_LEAF_OFFSET, n - 1 - AUDIT_LEAF_OFFSET, hash);
	hash_to_hex(hash, AUDIT_HASH_LEN, entry_hex);
	memcpy(s, entry_hex, 64);
	*line = s;
	*len = n;
}

/* Lower-case hex of a hash, compared as text: the writer only emits lower
 * case, so a flipped case bit is a change, and no decoding is needed. This
 * runs for every record verified, so four bytes at a time: each nibble is
 * spread into a byte of a 64-bit word and turned into its digit there. */
static void hex32(const uint8_t in[AUDIT_HASH_LEN], char out[64])
{
	for (int i = 0; i < AUDIT_HASH_LEN; i += 4) {
		uint32_t w;
		memcpy(&w, in + i, 4);
		uint64_t x = be32toh(w);
		x = (x | x << 16) & UINT64_C(0x0000ffff0000ffff);
		x = (x | x << 8) & UINT64_C(0x00ff00ff00ff00ff);
		x = (x | x << 4) & UINT64_C(0x0f0f0f0f0f0f0f0f);
		/* '0' + n, and 'a' - '0' - 10 more where n > 9. */
		uint64_t over9 = ((x + UINT64_C(0x0606060606060606)) >> 4) & UINT64_C(0x0101010101010101);
		x += UINT64_C(0x3030303030303030) + over9 * ('a' - '0' - 10);
		x = htobe64(x);
		memcpy(out + 2 * i, &x, 8);
	}
}

/* Twelve decimal digits, eight and four at a time: every byte is checked to
 * be a digit, then pairs, quads and octets are folded by multiplication. */
static int digits12(const char *s, uint64_t *out)
{
	uint64_t a;
	uint32_t b;
	memcpy(&a, s, 8);
	memcpy(&b, s + 8, 4);
	a = le64toh(a);
	b = le32toh(b);
	const uint64_t hi = UINT64_C(0xf0f0f0f0f0f0f0f0), zero = UINT64_C(0x3030303030303030),
		       six = UINT64_C(0x0606060606060606);
	if ((a & hi) != zero || ((a + six) & hi) != zero || (b & (uint32_t)hi) != (uint32_t)zero ||
	    ((b + (uint32_t)six) & (uint32_t)hi) != (uint32_t)zero)
		return -1;
	a -= zero;
	a = (a * 10 + (a >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
	a = (a * 100 + (a >> 16)) & UINT64_C(0x0000ffff0000ffff);
	a = (a * 10000 + (a >> 32)) & UINT64_C(0xffffffff);
	b -= (uint32_t)zero;
	b = (b * 10 + (b >> 8)) & 0x00ff00ffu;
	b = (b * 100 + (b >> 16)) & 0xffffu;
	*out = a * 10000 + b;
	return 0;
}

int audit_format_check_hex(const char *line, size_t len, const char *prev_hex, uint64_t seq,
			   uint8_t hash[AUDIT_HASH_LEN], uint64_t *ckpt, const char **why)
{
	char hex[64];
	uint64_t s, c;
	if (len + 1 > AUDIT_RECORD_MAX) {
		*why = "record longer than the limit of the format (AUDIT_RECORD_MAX, audit_format.h)";
		return -EBADMSG;
	}
	if (len < AUDIT_JSON_OFFSET + 2 || line[64] != ' ' || line[129] != ' ' ||
	    line[130 + AUDIT_SEQ_DIGITS] != ' ' || line[AUDIT_JSON_OFFSET - 1] != ' ' ||
	    line[AUDIT_JSON_OFFSET] != '{' || line[len - 1] != '}' ||
	    digits12(line + 130, &s) < 0 || digits12(line + 131 + AUDIT_SEQ_DIGITS, &c) < 0) {
		*why = "malformed record (header layout)";
		return -EBADMSG;
	}
	merkle_leaf_hash(line + AUDIT_LEAF_OFFSET, len - AUDIT_LEAF_OFFSET, hash);
	hex32(hash, hex);
	if (memcmp(hex, line, 64) != 0) {
		*why = "record content does not match its entry hash (changed record)";
		return -EBADMSG;
	}
	if (s != seq) {
		*why = s < seq ? "sequence number goes back (duplicated or reordered record)"
			       : "sequence number skips ahead (deleted record)";
		return -EBADMSG;
	}
	if (prev_hex && memcmp(prev_hex, line + 65, 64) != 0) {
		*why = "previous-hash link broken (record deleted, inserted or reordered before it)";
		return -EBADMSG;
	}
	if (c > seq) {
		*why = "record cites a checkpoint beyond itself";
		return -EBADMSG;
	}
	if (ckpt)
		*ckpt = c;
	return 0;
}

int audit_format_check(const char *line, size_t len, const uint8_t *prev, uint64_t seq,
		       uint8_t hash[AUDIT_HASH_LEN], uint64_t *ckpt, const char **why)
{
	char prev_hex[64];
	if (prev)
		hex32(prev, prev_hex);
	return audit_format_check_hex(line, len, prev ? prev_hex : NULL, seq, hash, ckpt, why);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int audit_segments_list(const char *dir, uint64_t **firsts, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	uint64_t *v = NULL;
	size_t count = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t first;
		const char *name = de->d_name;
		if (strlen(name) != 4 + AUDIT_SEQ_DIGITS + 4 || strncmp(name, "seg-", 4) != 0 ||
		    strcmp(name + 4 + AUDIT_SEQ_DIGITS, ".log") != 0 || digits12(name + 4, &first) < 0)
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[count++] = first;
	}
	closedir(d);
	if (count)
		qsort(v, count, sizeof(*v), cmp_u64);
	*firsts = v;
	*n = count;
	return 0;
}

char *audit_segment_path(const char *dir, uint64_t first, const char *ext)
{
	return xasprintf("%s/seg-%012llu.%s", dir, (unsigned long long)first, ext);
}

int audit_base_write(const char *dir, const uint8_t prev[AUDIT_HASH_LEN], const struct merkle_compact *c)
{
	char hex[65];
	hash_to_hex(prev, AUDIT_HASH_LEN, hex);
	char *text = xasprintf("mai-audit-base/1\n%llu\n%s\n", (unsigned long long)c->size, hex);
	for (unsigned i = 0; i < c->n; i++) {
		hash_to_hex(c->stack[i], AUDIT_HASH_LEN, hex);
		char *more = xasprintf("%s%s\n", text, hex);
		free(text);
		text = more;
	}
	_cleanup_free_ char *path = xasprintf("%s/base", dir);
	int r = fileio_write_atomic(path, text, strlen(text), 0644);
	free(text);
	return r;
}

int audit_base_read(const char *dir, uint8_t prev[AUDIT_HASH_LEN], struct merkle_compact *c)
{
	_cleanup_free_ char *path = xasprintf("%s/base", dir), *text = NULL;
	size_t len;
	int r = fileio_read_path(path, 8192, &text, &len);
	if (r < 0)
		return r;
	merkle_compact_init(c);
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, "mai-audit-base/1") != 0)
		return -EBADMSG;
	line = strtok_r(NULL, "\n", &save);
	char *end = NULL;
	if (!line || !*line || *line == '-')
		return -EBADMSG;
	errno = 0;
	unsigned long long k = strtoull(line, &end, 10);
	if (errno || *end || k == 0 || k > AUDIT_SEQ_MAX)
		return -EBADMSG;
	line = strtok_r(NULL, "\n", &save);
	if (!line || hash_from_hex(line, prev, AUDIT_HASH_LEN) < 0)
		return -EBADMSG;
	unsigned want = (unsigned)__builtin_popcountll(k);
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (c->n >= want || hash_from_hex(line, c->stack[c->n], AUDIT_HASH_LEN) < 0)
			return -EBADMSG;
		c->n++;
	}
	if (c->n != want)
		return -EBADMSG;
	c->size = k;
	return 0;
}
