/* Shared setup for the audit tests: a key pair outside the log directory and
 * a writer opened on dir/audit. */
#ifndef MAI_AUDIT_FIXTURE_H
#define MAI_AUDIT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "audit.h"

/* Writes dir/NAME.key and dir/NAME.pub for key name origin. */
void fixture_keys(const char *dir, const char *name, const char *origin);
/* Options for dir/audit signed with dir/NAME.key. Strings live in static
 * buffers until the next call. */
struct audit_options fixture_options(const char *dir, const char *name, int fsync);
/* Appends n records of type "job_accepted" with a "file" field; the index
 * is in the field so that records differ. */
void fixture_append(struct audit_log *log, uint64_t n);
/* A closed log in dir/audit: keys dir/k.key and dir/k.pub (key name
 * mai.test/audit), n records appended by fixture_append, and the
 * checkpoint the close makes. */
void fixture_closed_log(const char *dir, int fsync, uint64_t n);
/* The verify line ("OK n=..." or "FAIL seq=...") of the log in log_dir
 * against the key file pub; caller frees. */
char *fixture_verify_line(const char *log_dir, const char *pub);
/* The same of dir/audit against dir/NAME.pub. */
char *fixture_verify_dir(const char *dir, const char *pub_name);
/* Reads a whole file; caller frees. */
char *fixture_read(const char *path, size_t *len);
void fixture_write(const char *path, const char *data, size_t len);

#endif
