/* Mount point checks for the FUSE file systems (maiaudit's view, the drop
 * directory in mount mode): find out what is at the mount point before
 * mounting, and clear a stale FUSE mount left by a killed process. */
#ifndef MAI_MOUNTUTIL_H
#define MAI_MOUNTUTIL_H

enum mountutil_state {
	MOUNTUTIL_READY,      /* an existing directory with nothing mounted on it */
	MOUNTUTIL_MISSING,    /* does not exist */
	MOUNTUTIL_NOT_DIR,    /* exists and is not a directory */
	MOUNTUTIL_STALE,      /* a FUSE mount whose process is gone: ENOTCONN */
	MOUNTUTIL_MOUNTED,    /* something live is mounted there already */
	MOUNTUTIL_ERROR,      /* stat failed otherwise; see the error text */
};

const char *mountutil_state_to_string(enum mountutil_state st);

/* Looks at path. On MOUNTUTIL_MOUNTED, MOUNTUTIL_ERROR and MOUNTUTIL_STALE
 * *detail (caller frees, may be NULL) says what was found, for messages. */
enum mountutil_state mountutil_probe(const char *path, char **detail);

/* Absolute, normalised form of a mount point that may be stale: the parent
 * is resolved with realpath() and the last component is appended, because
 * resolving the stale directory itself fails with ENOTCONN. Caller frees.
 * Returns 0 or -errno. */
int mountutil_canonical(const char *path, char **out);

/* Searches a mountinfo file (normally /proc/self/mountinfo) for a mount
 * whose mount point is exactly mnt (canonical form). On 0 *fstype (caller
 * frees) holds its type, e.g. "fuse.maiaudit"; -ENOENT when none, or
 * -errno when the file cannot be read. When several are stacked the last
 * (topmost) one is reported. */
int mountutil_find(const char *mountinfo, const char *mnt, char **fstype);

/* mountutil_probe(), and when it finds a stale mount: says so in a warning
 * naming who (e.g. "a previous maiaudit") left it, detaches it lazily and
 * probes again. On a failed unmount the state stays MOUNTUTIL_STALE and
 * *detail says why. */
enum mountutil_state mountutil_probe_clear(const char *path, const char *who, char **detail);

/* Detaches whatever is mounted on mnt lazily (MNT_DETACH): umount2() when
 * allowed, otherwise "fusermount3 -u -z", which a non-root user may run on
 * its own FUSE mounts. Returns 0 or -errno with *err (caller frees). */
int mountutil_lazy_unmount(const char *mnt, char **err);

#endif
