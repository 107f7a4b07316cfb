/* The start-time check that the uid range reserved for the sandbox
 * (sandbox_uids.h) is the agent's alone on this host: no account or group
 * (getpwent, getgrent), no subordinate id range (/etc/subuid, /etc/subgid:
 * a rootless container of that user could run as those uids), no process
 * (the Uid and Gid lines of /proc/PID/status) and no file the check can look
 * at cheaply (the entries of /, /home, /root, /tmp, /var/tmp, /dev/shm,
 * /run/user, /srv, /opt, /mnt) has a uid or gid in it. A process of another
 * Mai agent's sandbox (a container labelled mai.agent) is not a collision
 * but a warning: the two agents' runs would share per-uid quotas. */
#ifndef MAI_SANDBOX_UIDCHECK_H
#define MAI_SANDBOX_UIDCHECK_H

#include <stdint.h>

#include "docker.h"

struct sandbox_uid_check {
	uint32_t first, last; /* the range as the host sees it */
	struct docker *docker; /* to tell other agents' sandboxes; NULL: none told */
	const char *root;      /* prefix of every host path looked at; NULL: "" (tests) */
};

/* 0 when nothing on the host uses the range; *warning (caller frees) may be
 * set. -EEXIST with *err (caller frees) naming the first account, group,
 * subordinate range, process or file found in it and what to do. */
int sandbox_uid_range_check(const struct sandbox_uid_check *c, char **warning, char **err);

/* The range of host uids that container uids first..last become under
 * dockerd's userns-remap: the subordinate range of the remap user (its
 * first line in root/etc/subuid; "dockremap" when remap_user is NULL) shifts
 * them. 0 with *host_first and *host_last, -ERANGE with *err when the range
 * does not fit in the mapped size, -ENOENT with *err when no such line. */
int sandbox_uid_range_remapped(const char *root, const char *remap_user, uint32_t first,
			       uint32_t last, uint32_t *host_first, uint32_t *host_last,
			       char **err);

#endif
