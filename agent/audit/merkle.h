/* RFC 6962 / RFC 9162 Merkle tree: leaf hash SHA-256(0x00||leaf), node hash
 * SHA-256(0x01||left||right), split at the largest power of two below n. */
#ifndef MAI_MERKLE_H
#define MAI_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#define MERKLE_HASH_LEN 32
#define MERKLE_MAX_PROOF 64

void merkle_leaf_hash(const void *data, size_t len, uint8_t out[MERKLE_HASH_LEN]);
void merkle_node_hash(const uint8_t l[MERKLE_HASH_LEN], const uint8_t r[MERKLE_HASH_LEN],
		      uint8_t out[MERKLE_HASH_LEN]);

/* The root of a growing tree kept as its perfect subtrees (at most 64 hashes):
 * what a verifier needs to stream a log without keeping it. */
struct merkle_compact {
	uint64_t size;
	unsigned n;
	uint8_t stack[64][MERKLE_HASH_LEN];
};

void merkle_compact_init(struct merkle_compact *c);
void merkle_compact_append(struct merkle_compact *c, const uint8_t leaf_hash[MERKLE_HASH_LEN]);
/* Root of the leaves appended so far; SHA-256("") for none. */
void merkle_compact_root(const struct merkle_compact *c, uint8_t out[MERKLE_HASH_LEN]);

/* A whole tree with every perfect subtree cached, so that proofs take
 * O(log^2 n) hashes and no scan. */
struct merkle_tree;

struct merkle_tree *merkle_tree_new(void);
void merkle_tree_free(struct merkle_tree *t);
void merkle_tree_append(struct merkle_tree *t, const uint8_t leaf_hash[MERKLE_HASH_LEN]);
uint64_t merkle_tree_size(const struct merkle_tree *t);
/* Forgets the leaves from size on (size >= the seeded base, <= the size):
 * the log writer drops records whose write failed. 0 or -EINVAL. */
int merkle_tree_truncate(struct merkle_tree *t, uint64_t size);
/* Starts a tree whose first c->size leaves were dropped (log retention): only
 * the perfect subtrees of the compact range are kept; proofs of later leaves
 * still work, leaves below c->size are gone. The tree must be empty. */
void merkle_tree_seed(struct merkle_tree *t, const struct merkle_compact *c);
/* The compact range (perfect subtrees) of the first size leaves. 0 or -EINVAL. */
int merkle_tree_compact(const struct merkle_tree *t, uint64_t size, struct merkle_compact *out);
/* Leaf hash at index (< size); NULL when out of range or dropped. */
const uint8_t *merkle_tree_leaf(const struct merkle_tree *t, uint64_t index);
/* Root of the first size leaves. 0 or -EINVAL when size > tree size. */
int merkle_tree_root(const struct merkle_tree *t, uint64_t size, uint8_t out[MERKLE_HASH_LEN]);
/* Inclusion proof of leaf index in the tree of the first size leaves, leaf to
 * root order. proof must hold MERKLE_MAX_PROOF hashes. 0 or -EINVAL. */
int merkle_tree_inclusion_proof(const struct merkle_tree *t, uint64_t index, uint64_t size,
				uint8_t proof[][MERKLE_HASH_LEN], size_t *n);
/* Consistency proof between sizes m <= n (RFC 9162 2.1.4). 0 or -EINVAL. */
int merkle_tree_consistency_proof(const struct merkle_tree *t, uint64_t m, uint64_t n,
				  uint8_t proof[][MERKLE_HASH_LEN], size_t *count);

/* RFC 9162 2.1.3.2. 0 when the proof shows the leaf at index in the tree of
 * that size and root, -EBADMSG otherwise. */
int merkle_verify_inclusion(const uint8_t leaf_hash[MERKLE_HASH_LEN], uint64_t index, uint64_t size,
			    const uint8_t proof[][MERKLE_HASH_LEN], size_t n,
			    const uint8_t root[MERKLE_HASH_LEN]);
/* RFC 9162 2.1.4.2. 0 or -EBADMSG; m must be at least 1 (a proof from the
 * empty tree would accept any root_m). */
int merkle_verify_consistency(uint64_t m, uint64_t n, const uint8_t root_m[MERKLE_HASH_LEN],
			      const uint8_t root_n[MERKLE_HASH_LEN],
			      const uint8_t proof[][MERKLE_HASH_LEN], size_t count);

#endif
