/* SHA256_Init and friends are deprecated in OpenSSL 3 but remain the cheapest
 * way to hash a few blocks; see merkle_leaf_hash. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "merkle.h"

#include <endian.h>
#include <errno.h>
#include <openssl/sha.h>
#include <string.h>

#include "macro.h"

/* The low-level SHA256 calls are used here on purpose: a leaf and a node hash
 * are a few blocks each, and EVP's per-call context setup would cost as much
 * as the hashing on the verification hot path. The padding (0x80, zeros, the
 * bit length) is written here and only whole blocks are passed to
 * SHA256_Update, which then runs the compression function straight on them:
 * no copy into the context, and the digest is the chaining state, so
 * SHA256_Final (its own padding, copies and cleansing, a third of the cost
 * of a node hash) is never needed. */
static void sha256_state_out(const SHA256_CTX *ctx, uint8_t out[MERKLE_HASH_LEN])
{
	for (int i = 0; i < 8; i++) {
		uint32_t be = htobe32((uint32_t)ctx->h[i]);
		memcpy(out + 4 * i, &be, 4);
	}
}

/* Pads the fill bytes at buf + at (at most 64 from there) for a message of
 * total bytes and hashes buf up to the end of the padding: buf must have 72
 * bytes of room past at + fill. */
static void sha256_pad_last(SHA256_CTX *ctx, uint8_t *buf, size_t at, size_t fill, uint64_t total)
{
	buf[at + fill++] = 0x80;
	size_t end = fill <= 56 ? 64 : 128;
	memset(buf + at + fill, 0, end - 8 - fill);
	uint64_t bits = htobe64(total * 8);
	memcpy(buf + at + end - 8, &bits, 8);
	SHA256_Update(ctx, buf, at + end);
}

/* A leaf up to this size is copied behind its prefix and hashed in one call:
 * each call into OpenSSL's block function costs about three blocks' worth
 * of set-up, more than copying a record of a few hundred bytes. */
#define LEAF_COPY_MAX 2048

void merkle_leaf_hash(const void *data, size_t len, uint8_t out[MERKLE_HASH_LEN])
{
	SHA256_CTX ctx;
	uint8_t buf[1 + LEAF_COPY_MAX + 72];
	const uint8_t *p = data;
	buf[0] = 0x00;
	SHA256_Init(&ctx);
	if (len <= LEAF_COPY_MAX) {
		size_t whole = (len + 1) & ~(size_t)63;
		memcpy(buf + 1, p, len);
		sha256_pad_last(&ctx, buf, whole, len + 1 - whole, (uint64_t)len + 1);
		sha256_state_out(&ctx, out);
		return;
	}
	/* The 0x00 prefix and the first 63 bytes make the first block; the rest
	 * is hashed where it lies. */
	memcpy(buf + 1, p, 63);
	SHA256_Update(&ctx, buf, 64);
	size_t bulk = (len - 63) & ~(size_t)63, left = len - 63 - bulk;
	SHA256_Update(&ctx, p + 63, bulk);
	memcpy(buf, p + 63 + bulk, left);
	sha256_pad_last(&ctx, buf, 0, left, (uint64_t)len + 1);
	sha256_state_out(&ctx, out);
}

void merkle_node_hash(const uint8_t l[MERKLE_HASH_LEN], const uint8_t r[MERKLE_HASH_LEN],
		      uint8_t out[MERKLE_HASH_LEN])
{
	uint8_t buf[1 + 2 * MERKLE_HASH_LEN + 72];
	SHA256_CTX ctx;
	buf[0] = 0x01;
	memcpy(buf + 1, l, MERKLE_HASH_LEN);
	memcpy(buf + 1 + MERKLE_HASH_LEN, r, MERKLE_HASH_LEN);
	/* Not SHA256(): in OpenSSL 3 the one-shot call fetches the algorithm
	 * each time and costs six times as much for these two blocks. */
	SHA256_Init(&ctx);
	sha256_pad_last(&ctx, buf, 64, 1, 1 + 2 * MERKLE_HASH_LEN);
	sha256_state_out(&ctx, out);
}

void merkle_compact_init(struct merkle_compact *c)
{
	memset(c, 0, sizeof(*c));
}

void merkle_compact_append(struct merkle_compact *c, const uint8_t leaf_hash[MERKLE_HASH_LEN])
{
	memcpy(c->stack[c->n++], leaf_hash, MERKLE_HASH_LEN);
	c->size++;
	/* Each trailing zero bit of the new size completes one perfect subtree. */
	for (uint64_t s = c->size; (s & 1) == 0; s >>= 1) {
		merkle_node_hash(c->stack[c->n - 2], c->stack[c->n - 1], c->stack[c->n - 2]);
		c->n--;
	}
}

void merkle_compact_root(const struct merkle_compact *c, uint8_t out[MERKLE_HASH_LEN])
{
	if (c->n == 0) {
		SHA256(NULL, 0, out);
		return;
	}
	uint8_t h[MERKLE_HASH_LEN];
	memcpy(h, c->stack[c->n - 1], MERKLE_HASH_LEN);
	for (unsigned i = c->n - 1; i-- > 0;)
		merkle_node_hash(c->stack[i], h, h);
	memcpy(out, h, MERKLE_HASH_LEN);
}

struct merkle_tree {
	uint64_t size;
	uint64_t base;  /* leaves below were dropped; only their subtrees remain */
	/* level[k][i]: hash of the perfect subtree of 2^k leaves starting at i<<k. */
	uint8_t (*level[64])[MERKLE_HASH_LEN];
	uint64_t cap[64];
};

struct merkle_tree *merkle_tree_new(void)
{
	return xcalloc(1, sizeof(struct merkle_tree));
}

void merkle_tree_free(struct merkle_tree *t)
{
	if (!t)
		return;
	for (int k = 0; k < 64; k++)
		free(t->level[k]);
	free(t);
}

static void level_put(struct merkle_tree *t, int k, uint64_t i, const uint8_t h[MERKLE_HASH_LEN])
{
	if (i >= t->cap[k]) {
		uint64_t cap = t->cap[k] ? t->cap[k] * 2 : 64;
		while (cap <= i)
			cap *= 2;
		t->level[k] = xrealloc(t->level[k], cap * MERKLE_HASH_LEN);
		t->cap[k] = cap;
	}
	memcpy(t->level[k][i], h, MERKLE_HASH_LEN);
}

void merkle_tree_append(struct merkle_tree *t, const uint8_t leaf_hash[MERKLE_HASH_LEN])
{
	uint64_t i = t->size;
	level_put(t, 0, i, leaf_hash);
	t->size++;
	for (int k = 1; k < 64 && ((i + 1) & ((UINT64_C(1) << k) - 1)) == 0; k++) {
		uint64_t j = i >> k;
		uint8_t h[MERKLE_HASH_LEN];
		merkle_node_hash(t->level[k - 1][2 * j], t->level[k - 1][2 * j + 1], h);
		level_put(t, k, j, h);
	}
}

void merkle_tree_seed(struct merkle_tree *t, const struct merkle_compact *c)
{
	uint64_t start = 0;
	unsigned i = 0;
	/* The compact range lists the perfect subtrees left to right, one per set
	 * bit of the size, largest first. */
	for (int h = 63; h >= 0 && i < c->n; h--) {
		if (!(c->size >> h & 1))
			continue;
		level_put(t, h, start >> h, c->stack[i++]);
		start += UINT64_C(1) << h;
	}
	t->size = t->base = c->size;
}

int merkle_tree_compact(const struct merkle_tree *t, uint64_t size, struct merkle_compact *out)
{
	if (size > t->size)
		return -EINVAL;
	merkle_compact_init(out);
	uint64_t start = 0;
	for (int h = 63; h >= 0; h--) {
		if (!(size >> h & 1))
			continue;
		memcpy(out->stack[out->n++], t->level[h][start >> h], MERKLE_HASH_LEN);
		start += UINT64_C(1) << h;
	}
	out->size = size;
	return 0;
}

int merkle_tree_truncate(struct merkle_tree *t, uint64_t size)
{
	if (size > t->size || size < t->base)
		return -EINVAL;
	/* Every perfect subtree that ends at or below size stays valid; those
	 * beyond are written again before anything reads them (append fills a
	 * subtree when its last leaf arrives, and reads only complete ones). */
	t->size = size;
	return 0;
}

uint64_t merkle_tree_size(const struct merkle_tree *t)
{
	return t->size;
}

const uint8_t *merkle_tree_leaf(const struct merkle_tree *t, uint64_t index)
{
	return index < t->size && index >= t->base ? t->level[0][index] : NULL;
}

/* Largest power of two strictly below n (n >= 2). */
static uint64_t split_point(uint64_t n)
{
	uint64_t k = 1;
	while (k << 1 < n)
		k <<= 1;
	return k;
}

/* MTH(D[lo:hi]) from the cached perfect subtrees. */
static void subtree_hash(const struct merkle_tree *t, uint64_t lo, uint64_t hi, uint8_t out[MERKLE_HASH_LEN])
{
	uint64_t n = hi - lo;
	if ((n & (n - 1)) == 0) {
		int k = __builtin_ctzll(n);
		/* A perfect range in RFC 6962's recursion always starts aligned. */
		memcpy(out, t->level[k][lo >> k], MERKLE_HASH_LEN);
		return;
	}
	uint64_t k = split_point(n);
	uint8_t l[MERKLE_HASH_LEN], r[MERKLE_HASH_LEN];
	subtree_hash(t, lo, lo + k, l);
	subtree_hash(t, lo + k, hi, r);
	merkle_node_hash(l, r, out);
}

int merkle_tree_root(const struct merkle_tree *t, uint64_t size, uint8_t out[MERKLE_HASH_LEN])
{
	if (size > t->size)
		return -EINVAL;
	if (size == 0) {
		SHA256(NULL, 0, out);
		return 0;
	}
	subtree_hash(t, 0, size, out);
	return 0;
}

static void inclusion_path(const struct merkle_tree *t, uint64_t m, uint64_t lo, uint64_t hi,
			   uint8_t proof[][MERKLE_HASH_LEN], size_t *n)
{
	if (hi - lo <= 1)
		return;
	uint64_t k = split_point(hi - lo);
	if (m < k) {
		inclusion_path(t, m, lo, lo + k, proof, n);
		subtree_hash(t, lo + k, hi, proof[(*n)++]);
	} else {
		inclusion_path(t, m - k, lo + k, hi, proof, n);
		subtree_hash(t, lo, lo + k, proof[(*n)++]);
	}
}

int merkle_tree_inclusion_proof(const struct merkle_tree *t, uint64_t index, uint64_t size,
				uint8_t proof[][MERKLE_HASH_LEN], size_t *n)
{
	*n = 0;
	if (size > t->size || index >= size || index < t->base)
		return -EINVAL;
	inclusion_path(t, index, 0, size, proof, n);
	return 0;
}

static void consistency_sub(const struct merkle_tree *t, uint64_t m, uint64_t lo, uint64_t hi, int whole,
			    uint8_t proof[][MERKLE_HASH_LEN], size_t *count)
{
	uint64_t n = hi - lo;
	if (m == n) {
		if (!whole)
			subtree_hash(t, lo, hi, proof[(*count)++]);
		return;
	}
	uint64_t k = split_point(n);
	if (m <= k) {
		consistency_sub(t, m, lo, lo + k, whole, proof, count);
		subtree_hash(t, lo + k, hi, proof[(*count)++]);
	} else {
		consistency_sub(t, m - k, lo + k, hi, 0, proof, count);
		subtree_hash(t, lo, lo + k, proof[(*count)++]);
	}
}

int merkle_tree_consistency_proof(const struct merkle_tree *t, uint64_t m, uint64_t n,
				  uint8_t proof[][MERKLE_HASH_LEN], size_t *count)
{
	*count = 0;
	if (n > t->size || m > n || (m && m < t->base))
		return -EINVAL;
	if (m == 0 || m == n)
		return 0;
	consistency_sub(t, m, 0, n, 1, proof, count);
	return 0;
}

int merkle_verify_inclusion(const uint8_t leaf_hash[MERKLE_HASH_LEN], uint64_t index, uint64_t size,
			    const uint8_t proof[][MERKLE_HASH_LEN], size_t n,
			    const uint8_t root[MERKLE_HASH_LEN])
{
	if (index >= size || n > MERKLE_MAX_PROOF)
		return -EBADMSG;
	uint64_t fn = index, sn = size - 1;
	uint8_t r[MERKLE_HASH_LEN];
	memcpy(r, leaf_hash, MERKLE_HASH_LEN);
	for (size_t i = 0; i < n; i++) {
		if (sn == 0)
			return -EBADMSG;
		if ((fn & 1) || fn == sn) {
			merkle_node_hash(proof[i], r, r);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			merkle_node_hash(r, proof[i], r);
		}
		fn >>= 1;
		sn >>= 1;
	}
	if (sn != 0 || memcmp(r, root, MERKLE_HASH_LEN) != 0)
		return -EBADMSG;
	return 0;
}

int merkle_verify_consistency(uint64_t m, uint64_t n, const uint8_t root_m[MERKLE_HASH_LEN],
			      const uint8_t root_n[MERKLE_HASH_LEN],
			      const uint8_t proof[][MERKLE_HASH_LEN], size_t count)
{
	/* From size 0 nothing is proved: every tree extends the empty one, so
	 * any "old root" would pass (Go's tlog.CheckTree refuses it too). */
	if (m == 0 || m > n || count > MERKLE_MAX_PROOF)
		return -EBADMSG;
	if (m == n)
		return count == 0 && memcmp(root_m, root_n, MERKLE_HASH_LEN) == 0 ? 0 : -EBADMSG;
	if (count == 0)
		return -EBADMSG;

	uint8_t path[MERKLE_MAX_PROOF + 1][MERKLE_HASH_LEN];
	size_t len = 0;
	/* When m is a power of two, its root is the first node of the path. */
	if ((m & (m - 1)) == 0)
		memcpy(path[len++], root_m, MERKLE_HASH_LEN);
	for (size_t i = 0; i < count; i++)
		memcpy(path[len++], proof[i], MERKLE_HASH_LEN);

	uint64_t fn = m - 1, sn = n - 1;
	while (fn & 1) {
		fn >>= 1;
		sn >>= 1;
	}
	uint8_t fr[MERKLE_HASH_LEN], sr[MERKLE_HASH_LEN];
	memcpy(fr, path[0], MERKLE_HASH_LEN);
	memcpy(sr, path[0], MERKLE_HASH_LEN);
	for (size_t i = 1; i < len; i++) {
		if (sn == 0)
			return -EBADMSG;
		if ((fn & 1) || fn == sn) {
			merkle_node_hash(path[i], fr, fr);
			merkle_node_hash(path[i], sr, sr);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			merkle_node_hash(sr, path[i], sr);
		}
		fn >>= 1;
		sn >>= 1;
	}
	if (sn != 0 || memcmp(fr, root_m, MERKLE_HASH_LEN) != 0 || memcmp(sr, root_n, MERKLE_HASH_LEN) != 0)
		return -EBADMSG;
	return 0;
}
