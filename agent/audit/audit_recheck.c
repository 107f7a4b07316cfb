/* The writer's reading back of its own records (audit_recheck.h). */
#include "audit_recheck.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "macro.h"

void audit_recheck_init(struct audit_recheck *c, const char *dir, const struct audit_chain *chain,
			uint64_t seg_first, uint64_t off, const struct merkle_compact *compact)
{
	free(c->dir);
	c->dir = xstrdup(dir);
	c->chain = *chain;
	c->seg_first = seg_first;
	c->off = off;
	c->compact = *compact;
}

void audit_recheck_clear(struct audit_recheck *c)
{
	free(c->dir);
	memset(c, 0, sizeof(*c));
}

struct fold {
	struct merkle_compact *compact;
	const struct merkle_store *tree;
	uint64_t seq;            /* of the next record */
	bool differs;            /* a leaf differs from the stored one */
	uint64_t first_differs;
};

static void fold_one(void *arg, const uint8_t hash[AUDIT_HASH_LEN], uint64_t off)
{
	struct fold *f = arg;
	uint8_t stored[AUDIT_HASH_LEN];
	(void)off;
	merkle_compact_append(f->compact, hash);
	if (!f->differs && f->tree && merkle_store_leaf(f->tree, f->seq, stored) == 0 &&
	    memcmp(stored, hash, AUDIT_HASH_LEN) != 0) {
		f->differs = true;
		f->first_differs = f->seq;
	}
	f->seq++;
}

int audit_recheck_run(struct audit_recheck *c, const struct merkle_compact *want, const struct merkle_store *tree,
		      char **err)
{
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t nseg = 0;
	uint64_t upto = want->size;
	if (c->chain.seq >= upto)
		return 0;
	int r = audit_segments_list(c->dir, &firsts, &nseg);
	if (r < 0) {
		*err = xasprintf("cannot list the segments: %s", strerror(-r));
		return -EBADMSG;
	}
	struct audit_chain chain = c->chain;
	struct merkle_compact compact = c->compact;
	struct fold f = { .compact = &compact, .tree = tree, .seq = chain.seq };
	uint64_t seg = c->seg_first, off = c->off, end = off;
	size_t i = 0;
	while (i < nseg && firsts[i] < c->seg_first)
		i++;
	/* Retention may have dropped the segment the last reading ended in,
	 * when it ended at that segment's end: the next one begins there. */
	if ((i == nseg || firsts[i] != c->seg_first) && i < nseg && firsts[i] == chain.seq) {
		seg = firsts[i];
		off = end = 0;
	}
	if (i == nseg || firsts[i] != seg) {
		_cleanup_free_ char *gone = audit_segment_path(c->dir, c->seg_first, "log");
		*err = xasprintf("segment %s is gone: records from seq %" PRIu64 " are missing", gone, chain.seq);
		return -EBADMSG;
	}
	for (; i < nseg && chain.seq < upto; i++, off = 0) {
		_cleanup_free_ char *path = audit_segment_path(c->dir, firsts[i], "log");
		struct audit_lines_bad bad;
		if (firsts[i] != seg && firsts[i] != chain.seq) {
			*err = xasprintf("%s starts at seq %" PRIu64 ", expected %" PRIu64
					 " (a segment was inserted or removed)", path, firsts[i], chain.seq);
			return -EBADMSG;
		}
		seg = firsts[i];
		r = audit_lines_check(path, off, upto - chain.seq, &chain, fold_one, &f, &end, &bad);
		if (r == -EBADMSG) {
			*err = xasprintf("%s, seq %" PRIu64 " at offset %" PRIu64 ": %s", path, bad.seq, bad.off,
					 bad.why);
			return r;
		}
		if (r < 0) {
			*err = xasprintf("%s: cannot read it back: %s", path, strerror(-r));
			return -EBADMSG;
		}
	}
	if (chain.seq < upto) {
		*err = xasprintf("the log ends at seq %" PRIu64 " but the agent wrote %" PRIu64
				 " records: records were cut", chain.seq, upto);
		return -EBADMSG;
	}
	if (compact.n != want->n || memcmp(compact.stack, want->stack, (size_t)want->n * AUDIT_HASH_LEN) != 0) {
		*err = f.differs
			? xasprintf("seq %" PRIu64 " is not the record the agent wrote (its hashes and the "
				    "chain after it were made to match)", f.first_differs)
			: xasprintf("records %" PRIu64 "..%" PRIu64 " are not the ones the agent wrote (their "
				    "hashes and the chain were made to match)", c->chain.seq, upto - 1);
		return -EBADMSG;
	}
	c->chain = chain;
	c->seg_first = seg;
	c->off = end;
	c->compact = compact;
	return 0;
}
