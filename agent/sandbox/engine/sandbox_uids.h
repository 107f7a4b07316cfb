/* The uids the sandbox's containers run as: a range reserved for the agent
 * (sandbox.yaml uid_range), one uid per container in flight, warm ones
 * included, so that no two runs share a uid and with it the kernel's
 * per-uid quotas (inotify instances, message-queue bytes, pending signals,
 * pipe pages, processes). The gid is the same number. A uid is taken at
 * create time and given back only once Docker has removed its container
 * (then none of its processes is left), by container id; a container whose
 * removal Docker refused keeps its uid until it goes. Thread-safe. */
#ifndef MAI_SANDBOX_UIDS_H
#define MAI_SANDBOX_UIDS_H

#include <stddef.h>
#include <stdint.h>

struct sandbox_uids;

/* first..last inclusive (0 only in tests: root). */
struct sandbox_uids *sandbox_uids_new(uint32_t first, uint32_t last);
void sandbox_uids_free(struct sandbox_uids *u);

/* A uid no container in flight has, the one after the last taken (a uid
 * just given back is the last to come again): 0, or -EAGAIN when every
 * uid of the range is in use. */
int sandbox_uids_take(struct sandbox_uids *u, uint32_t *uid);
/* Ties a taken uid to the container created with it. */
void sandbox_uids_bind(struct sandbox_uids *u, uint32_t uid, const char *id);
/* Gives back a taken uid whose create failed (no container has it). */
void sandbox_uids_give(struct sandbox_uids *u, uint32_t uid);
/* Gives back the uid of container id, now removed; an id without one is
 * ignored. */
void sandbox_uids_removed(struct sandbox_uids *u, const char *id);
/* How many uids are taken now. */
size_t sandbox_uids_in_use(struct sandbox_uids *u);

#endif
