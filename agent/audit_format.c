#include "audit_format.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "hash.h"
#include "macro.h"
#include "merkle.h"

char *audit_canonical_json(const json_t *json)
{
	return json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
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
 * case, so a flipped case bit is a change, and no decoding is needed. Two
 * digits per byte from a table: this runs for every record verified. */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static void hex32(const uint8_t in[AUDIT_HASH_LEN], char out[64])
{
	for (int i = 0; i < AUDIT_HASH_LEN; i++)
		memcpy(out + 2 * i, hex_pairs + 2 * in[i], 2);
}

static int digits12(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	for (int i = 0; i < AUDIT_SEQ_DIGITS; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int audit_format_check_hex(const char *line, size_t len, const char *prev_hex, uint64_t seq,
			   uint8_t hash[AUDIT_HASH_LEN], uint64_t *ckpt, const char **why)
{
	char hex[64];
	uint64_t s, c;
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
