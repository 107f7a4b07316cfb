#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hash.h"
#include "merkle.h"

/* RFC 6962 reference data (the Certificate Transparency test vectors): the
 * leaves, and the root for each tree size 0..8. */
static const char *leaves_hex[] = {
	"", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f",
};
static const char *roots_hex[] = {
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
	"fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
	"aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
	"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
	"4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
	"76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
	"ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
	"5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
};

static struct merkle_tree *reference_tree(void)
{
	struct merkle_tree *t = merkle_tree_new();
	for (size_t i = 0; i < 8; i++) {
		uint8_t data[16], h[MERKLE_HASH_LEN];
		size_t n = strlen(leaves_hex[i]) / 2;
		if (n)
			assert_int_equal(hash_from_hex(leaves_hex[i], data, n), 0);
		merkle_leaf_hash(data, n, h);
		merkle_tree_append(t, h);
	}
	return t;
}

static void unhex(const char *s, uint8_t out[MERKLE_HASH_LEN])
{
	assert_int_equal(hash_from_hex(s, out, MERKLE_HASH_LEN), 0);
}

static void test_roots_match_rfc6962(void **state)
{
	struct merkle_tree *t = reference_tree();
	struct merkle_compact c;
	merkle_compact_init(&c);
	for (uint64_t size = 0; size <= 8; size++) {
		uint8_t root[MERKLE_HASH_LEN], croot[MERKLE_HASH_LEN];
		char hex[65];
		assert_int_equal(merkle_tree_root(t, size, root), 0);
		hash_to_hex(root, MERKLE_HASH_LEN, hex);
		assert_string_equal(hex, roots_hex[size]);
		merkle_compact_root(&c, croot);
		assert_memory_equal(root, croot, MERKLE_HASH_LEN);
		if (size < 8)
			merkle_compact_append(&c, merkle_tree_leaf(t, size));
	}
	uint8_t root[MERKLE_HASH_LEN];
	assert_int_equal(merkle_tree_root(t, 9, root), -EINVAL);
	merkle_tree_free(t);
}

/* Known proofs from the same reference set. */
static void test_known_proofs(void **state)
{
	struct merkle_tree *t = reference_tree();
	uint8_t proof[MERKLE_MAX_PROOF][MERKLE_HASH_LEN], want[MERKLE_HASH_LEN];
	size_t n;
	static const char *p0[] = { "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
				    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
				    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4" };
	static const char *p5[] = { "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
				    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
				    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7" };
	static const char *c28[] = { "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
				     "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4" };
	static const char *c25[] = { "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
				     "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b" };

	assert_int_equal(merkle_tree_inclusion_proof(t, 0, 8, proof, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++) {
		unhex(p0[i], want);
		assert_memory_equal(proof[i], want, MERKLE_HASH_LEN);
	}
	assert_int_equal(merkle_tree_inclusion_proof(t, 5, 8, proof, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++) {
		unhex(p5[i], want);
		assert_memory_equal(proof[i], want, MERKLE_HASH_LEN);
	}
	assert_int_equal(merkle_tree_consistency_proof(t, 2, 8, proof, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < 2; i++) {
		unhex(c28[i], want);
		assert_memory_equal(proof[i], want, MERKLE_HASH_LEN);
	}
	assert_int_equal(merkle_tree_consistency_proof(t, 2, 5, proof, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < 2; i++) {
		unhex(c25[i], want);
		assert_memory_equal(proof[i], want, MERKLE_HASH_LEN);
	}
	merkle_tree_free(t);
}

/* Every proof in every tree up to 40 leaves verifies; every mutation of it
 * (wrong leaf, wrong index, wrong size, flipped bit, missing or extra step)
 * fails. */
static void test_all_proofs_and_mutations(void **state)
{
	struct merkle_tree *t = merkle_tree_new();
	for (int i = 0; i < 40; i++) {
		uint8_t d[2] = { (uint8_t)i, (uint8_t)(i * 7) }, h[MERKLE_HASH_LEN];
		merkle_leaf_hash(d, 2, h);
		merkle_tree_append(t, h);
	}
	uint8_t proof[MERKLE_MAX_PROOF + 1][MERKLE_HASH_LEN], root[MERKLE_HASH_LEN], root_m[MERKLE_HASH_LEN];
	size_t n;
	for (uint64_t size = 1; size <= 40; size++) {
		assert_int_equal(merkle_tree_root(t, size, root), 0);
		for (uint64_t i = 0; i < size; i++) {
			const uint8_t *leaf = merkle_tree_leaf(t, i);
			assert_int_equal(merkle_tree_inclusion_proof(t, i, size, proof, &n), 0);
			assert_int_equal(merkle_verify_inclusion(leaf, i, size, (const void *)proof, n, root), 0);
			assert_int_equal(merkle_verify_inclusion(merkle_tree_leaf(t, (i + 1) % 40), i, size,
								 (const void *)proof, n, root), -EBADMSG);
			if (size > 1) {
				assert_int_equal(merkle_verify_inclusion(leaf, (i + 1) % size, size, (const void *)proof, n, root), -EBADMSG);
				/* A wrong size is checked against the root a checkpoint
				 * signs for that size: sizes and roots come in pairs. */
				uint8_t other[MERKLE_HASH_LEN];
				if (size < 40) {
					assert_int_equal(merkle_tree_root(t, size + 1, other), 0);
					assert_int_equal(merkle_verify_inclusion(leaf, i, size + 1, (const void *)proof, n, other), -EBADMSG);
				}
				assert_int_equal(merkle_verify_inclusion(leaf, i, size, (const void *)proof, n - 1, root), -EBADMSG);
				proof[n / 2][3] ^= 0x10;
				assert_int_equal(merkle_verify_inclusion(leaf, i, size, (const void *)proof, n, root), -EBADMSG);
				proof[n / 2][3] ^= 0x10;
			}
			memset(proof[n], 0xab, MERKLE_HASH_LEN); /* trailing garbage */
			assert_int_equal(merkle_verify_inclusion(leaf, i, size, (const void *)proof, n + 1, root), -EBADMSG);
		}
		for (uint64_t m = 1; m <= size; m++) {
			assert_int_equal(merkle_tree_root(t, m, root_m), 0);
			assert_int_equal(merkle_tree_consistency_proof(t, m, size, proof, &n), 0);
			assert_int_equal(merkle_verify_consistency(m, size, root_m, root, (const void *)proof, n), 0);
			if (m == size)
				continue;
			assert_int_equal(merkle_verify_consistency(m, size, root, root, (const void *)proof, n), -EBADMSG);
			if (size < 40) {
				uint8_t other[MERKLE_HASH_LEN];
				assert_int_equal(merkle_tree_root(t, size + 1, other), 0);
				assert_int_equal(merkle_verify_consistency(m, size + 1, root_m, other, (const void *)proof, n), -EBADMSG);
			}
			proof[0][0] ^= 1;
			assert_int_equal(merkle_verify_consistency(m, size, root_m, root, (const void *)proof, n), -EBADMSG);
			proof[0][0] ^= 1;
			memset(proof[n], 0xab, MERKLE_HASH_LEN);
			assert_int_equal(merkle_verify_consistency(m, size, root_m, root, (const void *)proof, n + 1), -EBADMSG);
		}
	}
	/* An index past the end never verifies. */
	assert_int_equal(merkle_tree_inclusion_proof(t, 40, 40, proof, &n), -EINVAL);
	merkle_tree_free(t);
}

/* A tree seeded with the compact range of its first leaves (what the log
 * keeps after a retention cut) gives the roots, proofs and compact ranges
 * the whole tree gives from there on, for every size of the cut (one or
 * several perfect subtrees); it cannot be cut below the seed or beyond
 * its size. */
static void test_seeded_tree_matches_the_whole(void **state)
{
	uint8_t leaf[40][MERKLE_HASH_LEN];
	struct merkle_tree *whole = merkle_tree_new();
	for (int i = 0; i < 40; i++) {
		uint8_t d[1] = { (uint8_t)i };
		merkle_leaf_hash(d, 1, leaf[i]);
		merkle_tree_append(whole, leaf[i]);
	}
	uint8_t proof[MERKLE_MAX_PROOF][MERKLE_HASH_LEN], other[MERKLE_MAX_PROOF][MERKLE_HASH_LEN];
	uint8_t a[MERKLE_HASH_LEN], b[MERKLE_HASH_LEN];
	size_t n, m;

	for (uint64_t base = 1; base < 40; base++) {
		struct merkle_compact c;
		assert_int_equal(merkle_tree_compact(whole, base, &c), 0);
		struct merkle_tree *t = merkle_tree_new();
		merkle_tree_seed(t, &c);
		for (uint64_t i = base; i < 40; i++)
			merkle_tree_append(t, leaf[i]);
		assert_int_equal(merkle_tree_size(t), 40);
		for (uint64_t size = base; size <= 40; size++) {
			assert_int_equal(merkle_tree_root(t, size, a), 0);
			assert_int_equal(merkle_tree_root(whole, size, b), 0);
			assert_memory_equal(a, b, MERKLE_HASH_LEN);
			assert_int_equal(merkle_tree_consistency_proof(t, base, size, proof, &n), 0);
			assert_int_equal(merkle_tree_consistency_proof(whole, base, size, other, &m), 0);
			assert_int_equal(n, m);
			assert_memory_equal(proof, other, n * MERKLE_HASH_LEN);
		}
		for (uint64_t i = base; i < 40; i++) {
			assert_int_equal(merkle_tree_inclusion_proof(t, i, 40, proof, &n), 0);
			assert_int_equal(merkle_tree_inclusion_proof(whole, i, 40, other, &m), 0);
			assert_int_equal(n, m);
			assert_memory_equal(proof, other, n * MERKLE_HASH_LEN);
		}
		assert_int_equal(merkle_tree_truncate(t, 41), -EINVAL);
		assert_int_equal(merkle_tree_truncate(t, base - 1), -EINVAL);
		assert_int_equal(merkle_tree_truncate(t, base), 0);
		assert_int_equal(merkle_tree_size(t), base);
		merkle_tree_free(t);
	}
	merkle_tree_free(whole);
}

/* The leaf and node hashes pad their own last blocks: every length around a
 * block boundary, and past the size hashed through a copy, must give what
 * plain SHA-256 of the prefixed bytes gives. */
static void test_hashes_match_sha256_at_every_length(void **state)
{
	static uint8_t data[4200], prefixed[4201];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 131 + 7);
	for (size_t len = 0; len < sizeof(data); len += len < 300 ? 1 : len < 2000 ? 61 : 1) {
		uint8_t got[MERKLE_HASH_LEN], want[MERKLE_HASH_LEN];
		prefixed[0] = 0x00;
		memcpy(prefixed + 1, data, len);
		hash_sha256(prefixed, len + 1, want);
		merkle_leaf_hash(data, len, got);
		assert_memory_equal(got, want, MERKLE_HASH_LEN);
	}
	uint8_t node[1 + 2 * MERKLE_HASH_LEN], got[MERKLE_HASH_LEN], want[MERKLE_HASH_LEN];
	node[0] = 0x01;
	memcpy(node + 1, data + 5, 2 * MERKLE_HASH_LEN);
	hash_sha256(node, sizeof(node), want);
	merkle_node_hash(data + 5, data + 5 + MERKLE_HASH_LEN, got);
	assert_memory_equal(got, want, MERKLE_HASH_LEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roots_match_rfc6962),
		cmocka_unit_test(test_hashes_match_sha256_at_every_length),
		cmocka_unit_test(test_known_proofs),
		cmocka_unit_test(test_all_proofs_and_mutations),
		cmocka_unit_test(test_seeded_tree_matches_the_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
