/* File helpers with full error handling: short reads and partial writes are
 * retried, atomic replacement goes through a temporary file, fsync and rename. */
#ifndef MAI_FILEIO_H
#define MAI_FILEIO_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

/* A listing of the directory dfd on a descriptor of its own (dfd stays
 * the caller's), or NULL with errno. closedir() frees it. */
DIR *fileio_opendir_at(int dfd);

/* Reads at most max bytes of an open descriptor into a new buffer (NUL
 * terminated, *len excludes the NUL). Returns 0, -EFBIG when the content is
 * larger than max, or -errno. The caller frees *out. */
int fileio_read_fd(int fd, size_t max, char **out, size_t *len) _must_check_;
/* The same for a path, which must name a regular file: -EINVAL for a FIFO,
 * socket, device or directory (opened without waiting for a FIFO's writer). */
int fileio_read_path(const char *path, size_t max, char **out, size_t *len) _must_check_;

/* Writes all of buf, retrying on EINTR and partial writes. 0 or -errno. */
int fileio_write_all(int fd, const void *buf, size_t len) _must_check_;
/* The same at file offset off (pwrite). */
int fileio_pwrite_all(int fd, const void *buf, size_t len, uint64_t off) _must_check_;

/* Replaces path with buf atomically: path.tmp.TID (the calling thread's
 * id, so that threads writing the same path do not meet), fsync, rename,
 * fsync of the directory. mode applies to the new file. 0 or -errno. */
int fileio_write_atomic(const char *path, const void *buf, size_t len, mode_t mode) _must_check_;
/* The same without the two fsyncs: readers see the old or the new content,
 * but a crash of the machine may lose the change. For state that is
 * rewritten anyway (status.json), where an fsync would only delay the
 * durable writes beside it. */
int fileio_write_replace(const char *path, const void *buf, size_t len, mode_t mode) _must_check_;

/* mkdir -p with the given mode for the directories it creates. 0 or -errno. */
int fileio_mkdir_p(const char *path, mode_t mode) _must_check_;

/* fsync of the directory that holds path. 0 or -errno. */
int fileio_fsync_parent(const char *path) _must_check_;

#endif
