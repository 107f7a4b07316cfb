/* A segment's records read one line at a time through a buffer of at most
 * about AUDIT_RECORD_MAX bytes, whatever the segment's size: the writer's
 * recovery at open and its re-reading at checkpoints. */
#ifndef MAI_AUDIT_LINES_H
#define MAI_AUDIT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit_format.h"

struct audit_lines {
	int fd;
	char *buf;
	size_t cap, start, end; /* buf[start, end) not yet returned */
	uint64_t buf_off;       /* file offset of buf[0] */
	bool eof;
};

/* Opens path and starts at offset. 0 or -errno. */
int audit_lines_open(struct audit_lines *l, const char *path, uint64_t offset);
/* The next whole line, without its newline: 1 with *line (valid until the
 * next call), *len and *off (its offset in the file); 0 at the end, when
 * what follows the last newline (if anything) is a partial line;
 * -EMSGSIZE for a line longer than AUDIT_RECORD_MAX, newline included;
 * -errno. */
int audit_lines_next(struct audit_lines *l, const char **line, size_t *len, uint64_t *off);
/* The offset just past the last line returned. */
uint64_t audit_lines_offset(const struct audit_lines *l);
void audit_lines_close(struct audit_lines *l);

/* Where a check of records stands: the next sequence number and the entry
 * hash before it. */
struct audit_chain {
	uint64_t seq;
	uint8_t prev[AUDIT_HASH_LEN];
};

/* What audit_lines_check() found wrong: why (static), at which record and
 * byte offset. */
struct audit_lines_bad {
	const char *why;
	uint64_t seq, off;
};

/* Checks the records of the segment at path from offset on, at most max of
 * them: each line's layout, its own entry hash, its sequence number and
 * its link to the one before (audit_format_check()). Each record that
 * passes moves *chain on and goes to fn (may be NULL) with its entry hash
 * and offset. 0 with *end the offset past the last record taken (a partial
 * line may follow), -EBADMSG with *bad, or -errno. */
int audit_lines_check(const char *path, uint64_t offset, uint64_t max, struct audit_chain *chain,
		      void (*fn)(void *arg, const uint8_t hash[AUDIT_HASH_LEN], uint64_t off), void *arg,
		      uint64_t *end, struct audit_lines_bad *bad);

#endif
