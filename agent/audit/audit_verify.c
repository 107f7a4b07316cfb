/* Streams every segment once: each record's own hash, its sequence number
 * and chain link are checked at fixed positions (no JSON parsing), the leaf
 * hashes feed a compact Merkle range, and the root at the checkpoint's size
 * is compared with the signed one. */
#include "audit_verify.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "audit_format.h"
#include "audit_reader.h"
#include "checkpoint.h"
#include "fileio.h"
#include "hash.h"
#include "macro.h"
#include "merkle.h"
#include "note_sign.h"
#include "sidecar.h"

const char *audit_checkpoint_status_to_string(enum audit_checkpoint_status s)
{
	switch (s) {
	case AUDIT_CKPT_OK: return "ok";
	case AUDIT_CKPT_MISSING: return "missing";
	case AUDIT_CKPT_BAD_SIGNATURE: return "bad-signature";
	case AUDIT_CKPT_MISMATCH: return "mismatch";
	case AUDIT_CKPT_STALE: return "stale";
	}
	return "unknown";
}

static void fail(struct audit_verify_report *rep, uint64_t seq, char *reason)
{
	if (!rep->ok) { /* keep the first failure */
		free(reason);
		return;
	}
	rep->ok = 0;
	rep->first_bad_seq = seq;
	rep->reason = reason;
}

static void report_init(struct audit_verify_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->ok = 1;
	rep->checkpoint = AUDIT_CKPT_MISSING;
}

/* A checkpoint the caller holds: its size and root, and the root the log has
 * at that size once the stream passes it. */
struct target {
	int want;
	uint64_t size;
	int seen;
	uint8_t root[MERKLE_HASH_LEN];
};

struct stream {
	uint64_t seq;
	uint8_t prev[AUDIT_HASH_LEN];
	/* The first record that cites a checkpoint larger than cite_limit (the
	 * one beside the log): proof that a newer one was signed. */
	uint64_t cite_limit;
	int above;
	uint64_t above_at, above_cited;
	struct merkle_compact compact;
	struct merkle_tree *tree; /* the whole tree, kept only for --since */
	struct target *targets[2];
};

static void stream_reach(struct stream *st)
{
	for (int i = 0; i < 2; i++) {
		struct target *t = st->targets[i];
		if (t && t->want && !t->seen && t->size == st->seq) {
			merkle_compact_root(&st->compact, t->root);
			t->seen = 1;
		}
	}
}

/* The hot path is SHA-256 over every byte plus one node hash per record, so
 * a window of the segment is cut in two at a line boundary and the halves
 * are hashed and checked on two threads; the chain link and the sequence
 * number where the halves meet are checked again in order afterwards. */
#define WINDOW_BYTES ((size_t)64 << 20)
#define PARALLEL_MIN ((size_t)1 << 20)

struct chunk {
	const char *data;
	size_t start, end;       /* [start, end) holds whole lines only */
	uint8_t (*hash)[AUDIT_HASH_LEN];
	size_t n;                /* records that passed */
	int bad;                 /* record n failed */
	const char *why;
	size_t bad_off;
	uint64_t cite_limit;
	int above;
	uint64_t above_cited;
	size_t above_idx;
};

static void *chunk_check(void *p)
{
	struct chunk *c = p;
	size_t pos = c->start;
	uint64_t base = 0;
	/* The first line's own number is the base; the in-order pass checks it. */
	if (c->end - c->start > AUDIT_JSON_OFFSET) {
		for (int i = 0; i < AUDIT_SEQ_DIGITS; i++) {
			char d = c->data[pos + 130 + (size_t)i];
			base = base * 10 + (uint64_t)(d >= '0' && d <= '9' ? d - '0' : 0);
		}
	}
	/* The previous line passed, so its first 64 bytes are its entry hash in
	 * the only spelling the writer uses: the link is checked as text. */
	const char *prev_line = NULL;
	while (pos < c->end) {
		const char *nl = memchr(c->data + pos, '\n', c->end - pos);
		size_t len = (size_t)(nl - c->data) - pos;
		uint64_t cited;
		if (audit_format_check_hex(c->data + pos, len, prev_line, base + c->n, c->hash[c->n], &cited,
					   &c->why) < 0) {
			c->bad = 1;
			c->bad_off = pos;
			break;
		}
		if (cited > c->cite_limit && !c->above) {
			c->above = 1;
			c->above_cited = cited;
			c->above_idx = c->n;
		}
		c->n++;
		prev_line = c->data + pos;
		pos += len + 1;
	}
	return NULL;
}

/* Folds a checked chunk into the stream in order. 0, or -1 after fail(). */
static int chunk_merge(const char *path, const struct chunk *c, struct stream *st, struct audit_verify_report *rep)
{
	if (c->n > 0 || c->bad) {
		/* The first line against what precedes it. */
		uint8_t h[AUDIT_HASH_LEN];
		const char *why;
		const char *nl = memchr(c->data + c->start, '\n', c->end - c->start);
		if (audit_format_check(c->data + c->start, (size_t)(nl - c->data) - c->start, st->prev, st->seq,
				       h, NULL, &why) < 0) {
			fail(rep, st->seq, xasprintf("%s (%s, offset %zu)", why, path, c->start));
			return -1;
		}
	}
	if (c->above && !st->above) {
		st->above = 1;
		st->above_cited = c->above_cited;
		st->above_at = st->seq + c->above_idx;
	}
	for (size_t i = 0; i < c->n; i++) {
		merkle_compact_append(&st->compact, c->hash[i]);
		if (st->tree)
			merkle_tree_append(st->tree, c->hash[i]);
		st->seq++;
		stream_reach(st);
	}
	if (c->n)
		memcpy(st->prev, c->hash[c->n - 1], AUDIT_HASH_LEN);
	if (c->bad) {
		fail(rep, st->seq, xasprintf("%s (%s, offset %zu)", c->why, path, c->bad_off));
		return -1;
	}
	return 0;
}

/* Checks one segment. Returns 0 (see rep->ok) or -errno. */
static int stream_segment(const char *path, int last, struct stream *st, struct audit_verify_report *rep)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0)
		return -errno;
	size_t len = (size_t)sb.st_size;
	if (len == 0)
		return 0;
	const char *data = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (data == MAP_FAILED)
		return -errno;
	madvise((void *)data, len, MADV_SEQUENTIAL);
	/* Whole lines end at the last newline; what follows is a write in
	 * progress or a torn tail the writer quarantines at its next start. */
	const char *lastnl = memrchr(data, '\n', len);
	size_t whole = lastnl ? (size_t)(lastnl - data) + 1 : 0;
	if (whole < len && !last)
		fail(rep, st->seq, xasprintf("%s: partial record at offset %zu inside the log", path, whole));
	size_t cap = (WINDOW_BYTES < whole ? WINDOW_BYTES : whole) / (AUDIT_JSON_OFFSET + 2) + 2;
	uint8_t (*hashes)[AUDIT_HASH_LEN] = xmalloc(cap * AUDIT_HASH_LEN);
	size_t pos = 0;
	while (pos < whole && rep->ok) {
		size_t end = whole;
		if (end - pos > WINDOW_BYTES) {
			const char *nl = memrchr(data + pos, '\n', WINDOW_BYTES);
			end = nl ? (size_t)(nl - data) + 1 : whole;
		}
		struct chunk c[2] = { { .data = data, .start = pos, .end = end, .hash = hashes,
					.cite_limit = st->cite_limit } };
		int parts = 1;
		if (end - pos >= PARALLEL_MIN) {
			const char *mid = memchr(data + pos + (end - pos) / 2, '\n', end - pos - (end - pos) / 2);
			size_t split = (size_t)(mid - data) + 1;
			if (split < end) {
				c[0].end = split;
				c[1] = (struct chunk){ .data = data, .start = split, .end = end,
						       .hash = hashes + (split - pos) / (AUDIT_JSON_OFFSET + 2) + 1,
						       .cite_limit = st->cite_limit };
				parts = 2;
			}
		}
		pthread_t th;
		int threaded = parts == 2 && pthread_create(&th, NULL, chunk_check, &c[1]) == 0;
		chunk_check(&c[0]);
		if (threaded)
			pthread_join(th, NULL);
		else if (parts == 2)
			chunk_check(&c[1]);
		for (int i = 0; i < parts; i++)
			if (chunk_merge(path, &c[i], st, rep) < 0)
				break;
		pos = end;
	}
	free(hashes);
	munmap((void *)data, len);
	return 0;
}

/* Reads and checks a signed checkpoint note. 0 with ck filled, -ENOENT when
 * absent, -EPERM/-EBADMSG with *err. */
static int load_checkpoint(const char *path, const struct note_verifier *v, struct checkpoint *ck, char **err)
{
	_cleanup_free_ char *note = NULL;
	size_t len;
	int r = fileio_read_path(path, 1 << 16, &note, &len);
	if (r < 0) {
		*err = xasprintf("%s: %s", path, strerror(-r));
		return r;
	}
	return checkpoint_open(v, note, len, ck, err);
}

/* The kept checkpoint against the log's own (already checked against the
 * records): an RFC 9162 consistency proof computed from the tree, verified
 * against the two signed roots. */
static void check_consistency(const char *since_path, const struct checkpoint *since, const struct checkpoint *ck,
			      uint64_t entries, const struct merkle_tree *tree, struct audit_verify_report *rep)
{
	if (since->size == 0) {
		fail(rep, 0, xasprintf("%s covers no records: every log extends the empty tree, so it "
				       "proves nothing; keep a checkpoint of a later size", since_path));
		return;
	}
	if (since->size > entries) {
		fail(rep, entries, xasprintf("%s covers %" PRIu64 " records but the log has only %" PRIu64
					     ": records were cut", since_path, since->size, entries));
		return;
	}
	if (rep->checkpoint != AUDIT_CKPT_OK && rep->checkpoint != AUDIT_CKPT_STALE) {
		fail(rep, 0, xasprintf("the log has no signed checkpoint to prove %s against", since_path));
		return;
	}
	if (since->size > ck->size) {
		fail(rep, ck->size, xasprintf("the log's checkpoint covers %" PRIu64 " records, fewer than the %"
					      PRIu64 " of %s: an older checkpoint was put back", ck->size,
					      since->size, since_path));
		return;
	}
	rep->consistency_from = since->size;
	rep->consistency_to = ck->size;
	if (merkle_tree_consistency_proof(tree, since->size, ck->size, rep->consistency_proof,
					  &rep->consistency_proof_n) < 0) {
		fail(rep, since->size, xasprintf("no consistency proof from %" PRIu64 " to %" PRIu64 " records "
						 "can be made from this log", since->size, ck->size));
		return;
	}
	rep->consistency_checked = 1;
	rep->consistency_ok = merkle_verify_consistency(since->size, ck->size, since->root, ck->root,
							(const uint8_t(*)[MERKLE_HASH_LEN])rep->consistency_proof,
							rep->consistency_proof_n) == 0;
	if (!rep->consistency_ok)
		fail(rep, 0, xasprintf("the consistency proof from %s (%" PRIu64 " records) to the log's "
				       "checkpoint (%" PRIu64 ") does not verify: the first %" PRIu64 " records are "
				       "not the ones that checkpoint signed (history rewritten)",
				       since_path, since->size, ck->size, since->size));
}

/* The writer records every checkpoint it signs as one more record (type
 * "checkpoint", its size and root), which no checkpoint can cover. A log
 * whose only record past the signed checkpoint is that record of that very
 * checkpoint is as current as it can be: the status is ok, not stale. */
static bool only_its_own_record(const char *log_dir, const struct checkpoint *ck, uint64_t entries)
{
	struct audit_reader *rd = NULL;
	_cleanup_free_ char *err = NULL, *json = NULL;
	char root[2 * MERKLE_HASH_LEN + 1];
	size_t len = 0;
	bool own = false;

	if (entries != ck->size + 1 || audit_reader_open(log_dir, &rd, &err) < 0)
		return false;
	if (audit_reader_get_json(rd, entries - 1, &json, &len) == 0) {
		json_t *rec = json_loadb(json, len, 0, NULL);
		json_t *f = json_object_get(rec, "fields");
		const char *type = json_string_value(json_object_get(rec, "type"));
		const char *hex = json_string_value(json_object_get(f, "root"));
		hash_to_hex(ck->root, MERKLE_HASH_LEN, root);
		own = type && strcmp(type, "checkpoint") == 0 && hex && strcmp(hex, root) == 0 &&
		      json_integer_value(json_object_get(f, "size")) == (json_int_t)ck->size;
		json_decref(rec);
	}
	audit_reader_close(rd);
	return own;
}

/* The checkpoint file's identity: the writer replaces it by a rename. */
static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* One pass over the log. *again when a record cites a later checkpoint
 * than the one read at the start and the checkpoint file has been replaced
 * since: a running writer signed a new one meanwhile, and the pass is worth
 * repeating rather than reporting an older checkpoint put back. */
static int verify_once(const char *log_dir, const char *pubkey_path, const char *since_path,
		       struct audit_verify_report *rep, bool *again)
{
	*again = false;
	report_init(rep);
	_cleanup_free_ char *defkey = xasprintf("%s/pubkey", log_dir), *err = NULL;
	struct note_verifier *v = NULL;
	int r = note_verifier_load(pubkey_path ? pubkey_path : defkey, &v, &err);
	if (r < 0) {
		rep->ok = 0;
		rep->reason = steal_pointer(&err);
		return r == -EINVAL ? -EINVAL : r;
	}
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t nseg = 0;
	if ((r = audit_segments_list(log_dir, &firsts, &nseg)) < 0) {
		note_verifier_free(v);
		rep->ok = 0;
		rep->reason = xasprintf("%s: cannot read the audit log: %s", log_dir, strerror(-r));
		return r;
	}

	struct checkpoint ck = { 0 }, since = { 0 };
	struct target ck_t = { 0 };
	bool since_loaded = false; /* check_consistency() proves it on the whole tree */
	_cleanup_free_ char *ckpath = xasprintf("%s/checkpoint", log_dir), *ckerr = NULL, *since_err = NULL;
	struct stat ck_at = { 0 }, ck_now = { 0 };
	bool ck_seen = stat(ckpath, &ck_at) == 0;
	int ckr = load_checkpoint(ckpath, v, &ck, &ckerr);
	if (ckr == 0) {
		ck_t.want = 1;
		ck_t.size = ck.size;
		rep->checkpoint_size = ck.size;
	}
	if (since_path) {
		int sr = load_checkpoint(since_path, v, &since, &since_err);
		if (sr == -ENOENT || sr == -EACCES || sr == -EISDIR) {
			note_verifier_free(v);
			checkpoint_clear(&ck);
			rep->ok = 0;
			rep->reason = steal_pointer(&since_err);
			return sr;
		}
		if (sr < 0)
			fail(rep, 0, xasprintf("%s: %s", since_path, since_err));
		else
			since_loaded = true;
	}

	struct stream st = { .cite_limit = ckr == 0 ? ck.size : UINT64_MAX };
	merkle_compact_init(&st.compact);
	if (since_loaded)
		st.tree = merkle_tree_new();
	st.targets[0] = &ck_t;
	stream_reach(&st); /* size 0 */
	/* After retention the log goes on from the anchor's compact range. */
	struct merkle_compact base;
	int br = audit_base_read(log_dir, st.prev, &base);
	if (br == 0) {
		st.compact = base;
		st.seq = base.size;
		if (st.tree)
			merkle_tree_seed(st.tree, &base);
		if (ckr == 0 && ck.size < base.size)
			fail(rep, base.size, xasprintf("%s/base: the log was cut at seq %" PRIu64 " beyond its signed "
						       "checkpoint (%" PRIu64 ")", log_dir, base.size, ck.size));
		if (since_loaded && since.size < base.size)
			fail(rep, 0, xasprintf("%s is older than the retention cut (seq %" PRIu64 "): it cannot be "
					       "checked against this log", since_path, base.size));
	} else if (br != -ENOENT) {
		fail(rep, 0, xasprintf("%s/base: the retention anchor is damaged", log_dir));
	}
	size_t skip = 0;
	while (br == 0 && skip + 1 < nseg && firsts[skip + 1] <= st.seq)
		skip++; /* segments below the anchor, left over from a crash */
	if (br == 0 && skip < nseg && firsts[skip] < st.seq)
		skip++;
	if (nseg > skip && firsts[skip] != st.seq)
		fail(rep, st.seq, xasprintf("%s: records from seq %" PRIu64 " to %" PRIu64 " are missing", log_dir,
					    st.seq, firsts[skip] - 1));
	for (size_t i = skip; i < nseg && rep->ok; i++) {
		_cleanup_free_ char *path = audit_segment_path(log_dir, firsts[i], "log");
		if (firsts[i] != st.seq) {
			fail(rep, st.seq, xasprintf("%s starts at seq %" PRIu64 ", expected %" PRIu64
						    " (segment missing or inserted)", path, firsts[i], st.seq));
			break;
		}
		r = stream_segment(path, i + 1 == nseg, &st, rep);
		if (r < 0) {
			fail(rep, st.seq, xasprintf("%s: cannot read: %s", path, strerror(-r)));
			break;
		}
	}
	rep->entries = st.seq;
	if (st.seq > 0)
		hash_to_hex(st.prev, AUDIT_HASH_LEN, rep->head_hex);

	if (ckr == -ENOENT) {
		rep->checkpoint = AUDIT_CKPT_MISSING;
		if (st.seq > 0)
			fail(rep, 0, xasprintf("%s: no signed checkpoint, the log's authorship cannot be checked", ckpath));
	} else if (ckr < 0) {
		rep->checkpoint = AUDIT_CKPT_BAD_SIGNATURE;
		fail(rep, 0, xasprintf("%s: %s", ckpath, ckerr));
	} else if (rep->ok) {
		if (ck.size > st.seq) {
			rep->checkpoint = AUDIT_CKPT_MISMATCH;
			fail(rep, st.seq, xasprintf("the log ends at %" PRIu64 " records but the signed checkpoint "
						    "covers %" PRIu64 ": records were cut", st.seq, ck.size));
		} else if (memcmp(ck_t.root, ck.root, MERKLE_HASH_LEN) != 0) {
			rep->checkpoint = AUDIT_CKPT_MISMATCH;
			fail(rep, 0, xasprintf("records 0..%" PRIu64 " do not match the root of the signed "
					       "checkpoint (log rewritten)", ck.size ? ck.size - 1 : 0));
		} else if (st.above) {
			*again = ck_seen && (stat(ckpath, &ck_now) < 0 || !same_file(&ck_at, &ck_now));
			rep->checkpoint = AUDIT_CKPT_MISMATCH;
			fail(rep, st.above_at, xasprintf("the checkpoint covers %" PRIu64 " records but this record "
							 "cites a later checkpoint of %" PRIu64 ": an older "
							 "checkpoint was put back", ck.size, st.above_cited));
		} else if (ck.size == st.seq || only_its_own_record(log_dir, &ck, st.seq)) {
			rep->checkpoint = AUDIT_CKPT_OK;
		} else {
			rep->checkpoint = AUDIT_CKPT_STALE;
		}
	}
	if (since_loaded && rep->ok)
		check_consistency(since_path, &since, &ck, st.seq, st.tree, rep);
	merkle_tree_free(st.tree);
	checkpoint_clear(&ck);
	checkpoint_clear(&since);
	note_verifier_free(v);
	return 0;
}

static int verify(const char *log_dir, const char *pubkey_path, const char *since_path,
		  struct audit_verify_report *rep)
{
	bool again = false;
	int r = verify_once(log_dir, pubkey_path, since_path, rep, &again);
	/* A writer that signs a checkpoint every few records may do so during
	 * every pass: a few passes, then the last one's word. */
	for (int pass = 1; again && pass < 4; pass++) {
		audit_verify_report_clear(rep);
		r = verify_once(log_dir, pubkey_path, since_path, rep, &again);
	}
	return r;
}

int audit_verify_log(const char *log_dir, const char *pubkey_path, struct audit_verify_report *rep)
{
	return verify(log_dir, pubkey_path, NULL, rep);
}

int audit_verify_log_since(const char *log_dir, const char *pubkey_path, const char *since_path,
			   struct audit_verify_report *rep)
{
	return verify(log_dir, pubkey_path, since_path, rep);
}

int audit_verify_sidecar(const char *sidecar_path, const char *pubkey_path, struct audit_verify_report *rep)
{
	report_init(rep);
	_cleanup_free_ char *text = NULL, *err = NULL;
	size_t len;
	struct note_verifier *v = NULL;
	if (!pubkey_path) {
		rep->ok = 0;
		rep->reason = xasprintf("%s: a sidecar is verified against the log's public key: give --pubkey KEY",
					sidecar_path);
		return -EINVAL;
	}
	int r = note_verifier_load(pubkey_path, &v, &err);
	if (r == 0 && (r = fileio_read_path(sidecar_path, SIDECAR_MAX_BYTES, &text, &len)) < 0)
		err = xasprintf("%s: cannot read: %s", sidecar_path, strerror(-r));
	if (r < 0) {
		note_verifier_free(v);
		rep->ok = 0;
		rep->reason = steal_pointer(&err);
		return r;
	}
	struct sidecar sc;
	struct checkpoint ck = { 0 };
	if (sidecar_parse(text, len, &sc, &err) < 0) {
		fail(rep, 0, xasprintf("%s: %s", sidecar_path, err));
		note_verifier_free(v);
		return 0;
	}
	_cleanup_free_ char *ckerr = NULL;
	r = checkpoint_open(v, sc.checkpoint, strlen(sc.checkpoint), &ck, &ckerr);
	if (r < 0) {
		rep->checkpoint = AUDIT_CKPT_BAD_SIGNATURE;
		fail(rep, sc.records[0].seq, xasprintf("%s: checkpoint: %s", sidecar_path, ckerr));
	} else {
		rep->checkpoint = AUDIT_CKPT_OK;
		rep->checkpoint_size = ck.size;
	}
	uint8_t h[AUDIT_HASH_LEN], prev_h[AUDIT_HASH_LEN];
	for (size_t i = 0; i < sc.n && rep->ok; i++) {
		struct sidecar_record *sr = &sc.records[i];
		const char *why;
		/* Consecutive records must also chain. */
		const uint8_t *prev = i > 0 && sc.records[i - 1].seq + 1 == sr->seq ? prev_h : NULL;
		if (audit_format_check(sr->line, sr->line_len, prev, sr->seq, h, NULL, &why) < 0) {
			fail(rep, sr->seq, xasprintf("%s (%s)", why, sidecar_path));
			break;
		}
		if (merkle_verify_inclusion(h, sr->seq, ck.size, (const uint8_t(*)[MERKLE_HASH_LEN])sr->proof,
					    sr->proof_n, ck.root) < 0) {
			rep->checkpoint = AUDIT_CKPT_MISMATCH;
			fail(rep, sr->seq, xasprintf("inclusion proof does not lead to the checkpoint root (%s)",
						     sidecar_path));
			break;
		}
		memcpy(prev_h, h, AUDIT_HASH_LEN);
		rep->entries++;
		hash_to_hex(h, AUDIT_HASH_LEN, rep->head_hex);
	}
	checkpoint_clear(&ck);
	sidecar_clear(&sc);
	note_verifier_free(v);
	return 0;
}

char *audit_verify_report_line(const struct audit_verify_report *rep)
{
	if (!rep->ok)
		return xasprintf("FAIL seq=%" PRIu64 ": %s", rep->first_bad_seq, rep->reason ? rep->reason : "unknown");
	_cleanup_free_ char *since = rep->consistency_checked
		? xasprintf(" consistency=ok from=%" PRIu64 " to=%" PRIu64 " proof=%zu", rep->consistency_from,
			    rep->consistency_to, rep->consistency_proof_n)
		: xstrdup("");
	return xasprintf("OK n=%" PRIu64 " head=%s checkpoint=%s%s", rep->entries,
			 rep->head_hex[0] ? rep->head_hex : "none", audit_checkpoint_status_to_string(rep->checkpoint),
			 since);
}

json_t *audit_verify_report_json(const struct audit_verify_report *rep)
{
	json_t *o = json_pack("{s:b, s:I, s:s?, s:s, s:I, s:o, s:o}", "ok", rep->ok, "entries",
			      (json_int_t)rep->entries, "head", rep->head_hex[0] ? rep->head_hex : NULL,
			      "checkpoint", audit_checkpoint_status_to_string(rep->checkpoint), "checkpoint_size",
			      (json_int_t)rep->checkpoint_size, "first_bad_seq",
			      rep->ok ? json_null() : json_integer((json_int_t)rep->first_bad_seq), "reason",
			      rep->reason && !rep->ok ? json_string(rep->reason) : json_null());
	if (rep->consistency_checked) {
		json_t *proof = json_array();
		for (size_t i = 0; i < rep->consistency_proof_n; i++) {
			char hex[2 * MERKLE_HASH_LEN + 1];
			hash_to_hex(rep->consistency_proof[i], MERKLE_HASH_LEN, hex);
			json_array_append_new(proof, json_string(hex));
		}
		json_object_set_new(o, "consistency", json_pack("{s:b, s:I, s:I, s:o}", "ok", rep->consistency_ok,
								"from", (json_int_t)rep->consistency_from, "to",
								(json_int_t)rep->consistency_to, "proof", proof));
	}
	return o;
}

void audit_verify_report_clear(struct audit_verify_report *rep)
{
	free(rep->reason);
	memset(rep, 0, sizeof(*rep));
}
