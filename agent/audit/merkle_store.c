/* The writer's tree on disk (merkle_store.h). */
#include "merkle_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "macro.h"

/* Nodes compared per read while the file is re-derived at open. */
#define CHECK_CHUNK 2048

struct merkle_store {
	int fd;
	char *path;
	struct merkle_compact compact; /* of every leaf appended */
	uint64_t base;                 /* leaves below were dropped */
	uint64_t nodes;                /* positions taken, written or queued */
	/* What the file held at open that is not yet known to be wrong: a node
	 * appended below this is compared, not written. */
	uint64_t file_nodes;
	uint8_t (*check)[MERKLE_HASH_LEN]; /* a window of the file being compared */
	uint64_t check_at, check_n;
	/* Nodes queued for the next flush, from position queue_at. */
	uint8_t (*queue)[MERKLE_HASH_LEN];
	size_t queue_n, queue_cap;
	uint64_t queue_at;
};

static int node_get(const void *ctx, unsigned level, uint64_t index, uint8_t out[MERKLE_HASH_LEN])
{
	const struct merkle_store *s = ctx;
	uint64_t pos = merkle_node_position(level, index);
	ssize_t n = pread(s->fd, out, MERKLE_HASH_LEN, (off_t)(pos * MERKLE_HASH_LEN));
	if (n < 0)
		return -errno;
	return n == MERKLE_HASH_LEN ? 0 : -EIO;
}

/* Writes the perfect subtrees of c where they belong. */
static int write_compact(struct merkle_store *s, const struct merkle_compact *c)
{
	uint64_t start = 0;
	unsigned i = 0;
	for (int h = 63; h >= 0 && i < c->n; h--) {
		if (!(c->size >> h & 1))
			continue;
		int r = fileio_pwrite_all(s->fd, c->stack[i++], MERKLE_HASH_LEN,
				   merkle_node_position((unsigned)h, start >> h) * MERKLE_HASH_LEN);
		if (r < 0)
			return r;
		start += UINT64_C(1) << h;
	}
	return 0;
}

/* Nodes a tree of size leaves has made, i.e. the position of the next. */
static uint64_t nodes_of(uint64_t size)
{
	return 2 * size - (uint64_t)__builtin_popcountll(size);
}

int merkle_store_open(const char *path, const struct merkle_compact *base, struct merkle_store **out,
		      char **err)
{
	struct merkle_store *s = xcalloc(1, sizeof(*s));
	struct stat st;
	s->path = xstrdup(path);
	s->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->fd < 0 || fstat(s->fd, &st) < 0) {
		int r = -errno;
		*err = xasprintf("%s: cannot open the Merkle tree file: %s", path, strerror(errno));
		merkle_store_free(s);
		return r;
	}
	merkle_compact_init(&s->compact);
	s->file_nodes = (uint64_t)st.st_size / MERKLE_HASH_LEN;
	if (base) {
		s->compact = *base;
		s->base = base->size;
		s->nodes = nodes_of(base->size);
		int r = write_compact(s, base);
		if (r < 0) {
			*err = xasprintf("%s: cannot write the retention anchor's subtrees: %s", path,
					 strerror(-r));
			merkle_store_free(s);
			return r;
		}
	}
	s->queue_at = s->nodes;
	*out = s;
	return 0;
}

void merkle_store_free(struct merkle_store *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->check);
	free(s->queue);
	free(s->path);
	free(s);
}

/* Whether the file already holds node at pos (which is below file_nodes).
 * The first difference ends the comparison: from there on the file is cut
 * and written anew. */
static bool file_holds(struct merkle_store *s, uint64_t pos, const uint8_t node[MERKLE_HASH_LEN])
{
	if (pos < s->check_at || pos >= s->check_at + s->check_n) {
		uint64_t n = s->file_nodes - pos < CHECK_CHUNK ? s->file_nodes - pos : CHECK_CHUNK;
		if (!s->check)
			s->check = xmalloc(CHECK_CHUNK * MERKLE_HASH_LEN);
		ssize_t got = pread(s->fd, s->check, n * MERKLE_HASH_LEN, (off_t)(pos * MERKLE_HASH_LEN));
		s->check_at = pos;
		s->check_n = got > 0 ? (uint64_t)got / MERKLE_HASH_LEN : 0;
		if (s->check_n == 0)
			goto differs;
	}
	if (memcmp(s->check[pos - s->check_at], node, MERKLE_HASH_LEN) == 0)
		return true;
differs:
	/* Cut at the first wrong node; the rest is written again. */
	s->file_nodes = pos;
	free(s->check);
	s->check = NULL;
	s->check_n = 0;
	if (ftruncate(s->fd, (off_t)(pos * MERKLE_HASH_LEN)) < 0)
		s->file_nodes = 0; /* cannot cut: overwrite in place all the same */
	return false;
}

void merkle_store_append(struct merkle_store *s, const uint8_t leaf[MERKLE_HASH_LEN])
{
	uint8_t made[65][MERKLE_HASH_LEN];
	unsigned n = merkle_compact_push(&s->compact, leaf, made);
	for (unsigned i = 0; i < n; i++) {
		uint64_t pos = s->nodes++;
		if (pos < s->file_nodes && s->queue_n == 0 && file_holds(s, pos, made[i])) {
			s->queue_at = s->nodes;
			continue;
		}
		if (s->queue_n == s->queue_cap) {
			s->queue_cap = s->queue_cap ? s->queue_cap * 2 : 64;
			s->queue = xrealloc(s->queue, s->queue_cap * MERKLE_HASH_LEN);
		}
		memcpy(s->queue[s->queue_n++], made[i], MERKLE_HASH_LEN);
	}
	if (s->nodes >= s->file_nodes && s->check) {
		free(s->check); /* the comparison is over */
		s->check = NULL;
		s->check_n = 0;
	}
}

int merkle_store_flush(struct merkle_store *s)
{
	if (s->queue_n == 0)
		return 0;
	int r = fileio_pwrite_all(s->fd, s->queue, s->queue_n * MERKLE_HASH_LEN, s->queue_at * MERKLE_HASH_LEN);
	if (r < 0)
		return r;
	s->queue_at += s->queue_n;
	s->queue_n = 0;
	/* A batch's queue is small; a long recovery's is given back. */
	if (s->queue_cap > 4096) {
		free(s->queue);
		s->queue = NULL;
		s->queue_cap = 0;
	}
	return 0;
}

void merkle_store_mark(const struct merkle_store *s, struct merkle_store_mark *m)
{
	m->compact = s->compact;
	m->nodes = s->nodes;
}

void merkle_store_rollback(struct merkle_store *s, const struct merkle_store_mark *m)
{
	s->compact = m->compact;
	s->nodes = m->nodes;
	s->queue_n = 0;
	s->queue_at = m->nodes;
	if (s->file_nodes > m->nodes)
		s->file_nodes = m->nodes;
	/* Whatever a failed write left past the mark is overwritten by the
	 * next flush, which starts there. */
}

const struct merkle_compact *merkle_store_compact(const struct merkle_store *s)
{
	return &s->compact;
}

struct merkle_nodes merkle_store_nodes(const struct merkle_store *s, uint64_t size)
{
	return (struct merkle_nodes){ .get = node_get, .ctx = s, .size = size, .base = s->base };
}

int merkle_store_leaf(const struct merkle_store *s, uint64_t index, uint8_t out[MERKLE_HASH_LEN])
{
	if (index < s->base)
		return -ENOENT;
	return node_get(s, 0, index, out);
}

int merkle_store_drop_below(struct merkle_store *s, uint64_t cut)
{
	struct merkle_compact keep;
	struct merkle_nodes src = merkle_store_nodes(s, cut);
	if (cut <= s->base)
		return 0;
	int r = merkle_nodes_compact(&src, cut, &keep);
	if (r < 0)
		return r;
	s->base = cut;
	/* Whole pages only are freed; a file system without holes keeps them. */
	off_t len = (off_t)(nodes_of(cut) * MERKLE_HASH_LEN) & ~(off_t)4095;
	if (len > 0 && fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, len) < 0 &&
	    errno != EOPNOTSUPP)
		return -errno;
	return write_compact(s, &keep);
}
