/* Read-only random access to an audit log, for any number of readers while
 * the writer appends. A reader never takes the writer's lock; it sees the
 * complete records that were on disk at open or at the last refresh. */
#ifndef MAI_AUDIT_READER_H
#define MAI_AUDIT_READER_H

#include <stddef.h>
#include <stdint.h>

struct audit_reader;

/* 0, or -errno with a message in *err (caller frees). *out is closed with
 * audit_reader_close(). */
int audit_reader_open(const char *log_dir, struct audit_reader **out, char **err);
/* Number of records (the next sequence number). */
uint64_t audit_reader_count(const struct audit_reader *r);
/* First sequence number still on disk (retention may have dropped older). */
uint64_t audit_reader_first(const struct audit_reader *r);
/* The record seq as stored (one line without its newline), found through the
 * index without a scan. *record is NUL terminated; caller frees. 0, -ENOENT
 * when seq is out of range or dropped, -EIO when the index disagrees. */
int audit_reader_get(struct audit_reader *r, uint64_t seq, char **record, size_t *len);
/* The canonical JSON body of record seq (the part after the fixed header).
 * Caller frees. Same returns as audit_reader_get. */
int audit_reader_get_json(struct audit_reader *r, uint64_t seq, char **json, size_t *len);
/* Entry hash of the last record in hex, "" for an empty log. 0 or -errno. */
int audit_reader_head_hex(struct audit_reader *r, char out[65]);
/* Latest signed checkpoint text (signed note). Caller frees. 0, -ENOENT. */
int audit_reader_checkpoint(struct audit_reader *r, char **text);
/* Picks up records appended since open or the last refresh. 0 or -errno. */
int audit_reader_refresh(struct audit_reader *r);
void audit_reader_close(struct audit_reader *r);

#endif
