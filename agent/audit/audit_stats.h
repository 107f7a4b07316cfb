/* What a monitoring system wants to know of an audit log, read from its
 * directory without verifying anything (that is audit_verify.h's job): how
 * many records and bytes, and the size and age of the signed checkpoint. */
#ifndef MAI_AUDIT_STATS_H
#define MAI_AUDIT_STATS_H

#include <stdint.h>
#include <time.h>

struct audit_stats {
	uint64_t records;         /* written to the log: the last record's seq + 1 */
	uint64_t bytes;           /* size of the segment files */
	uint64_t checkpoint_size; /* tree size the checkpoint file names; 0: none */
	time_t checkpoint_time;   /* when that file was written; 0: no checkpoint */
};

/* Fills *out from log_dir. 0, or -errno when the directory cannot be read
 * (*out is then zero). */
int audit_stats_read(const char *log_dir, struct audit_stats *out);

#endif
