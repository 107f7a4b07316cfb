/* The life of a sandbox's containers: created with every default of
 * docs/ARCHITECTURE.md "Sandbox defaults", attached before they start (not
 * a byte of output is missed), their init watched (sandbox_exit.h), and removed after
 * their one run, in the background when the result need not wait for it
 * (sandbox_reap.h). A removal Docker refuses (it went away mid-run) leaves
 * an orphan, removed before the next run; what a crash leaves is found by
 * label at the next start. */
#ifndef MAI_SANDBOX_CONTAINER_H
#define MAI_SANDBOX_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker.h"
#include "level.h"
#include "sandbox_options.h"
#include "sandbox_quiet.h"

struct sandbox_exit;
struct sandbox_exit_init;
struct sandbox_net;
struct sandbox_trust;
struct sandbox_uids;
struct sandbox_containers;

/* A created, attached and started container whose program waits for its
 * job on stdin. */
struct sandbox_container {
	char *id;
	struct docker_stream *stream;
	struct sandbox_limits limits;   /* as created, or as updated */
	struct sandbox_exit_init *init; /* its init, watched; NULL: the run waits for Docker */
	uint32_t uid;                   /* its own uid and gid (sandbox_uids.h) */
};

/* What a container is created with beyond its limits. */
struct sandbox_container_spec {
	const char *image;        /* NULL: the sandbox's image */
	const char *program;      /* python source run with -I -u -B -c; NULL: the bootstrap */
	bool network;             /* join the sandbox network (allowlist levels) */
	int64_t deps_tmpfs_bytes; /* a tmpfs for dependencies; 0: none */
};

/* What all the containers of a sandbox share; every pointer is borrowed
 * and must outlive the handle. */
struct sandbox_container_config {
	struct docker *docker;
	const char *image;
	struct sandbox_uids *uids;         /* each container's own uid and gid */
	const char *seccomp_profile;       /* JSON (sandbox_seccomp.h) */
	const char *instance;              /* the mai.instance label */
	const struct sandbox_trust *trust; /* runtime and pids allowance per level */
	struct sandbox_exit *exit;         /* watches each init */
	const struct sandbox_net *net;     /* the allowlist network; may be NULL */
	struct sandbox_quiet *quiet;       /* removals wait for quiet moments */
	unsigned workers;                  /* more than 2 per worker queued: removed at once */
};

struct sandbox_containers *sandbox_containers_new(const struct sandbox_container_config *cfg);
/* Removes what is queued and the orphans; the ones Docker still refuses are
 * logged (found by label at the next start). NULL is a no-op. */
void sandbox_containers_free(struct sandbox_containers *ct);

/* Removes the containers labelled mai.instance=instance: leftovers of an
 * earlier run of this agent. 0 with *removed (logged), or -EIO with *err
 * (caller frees) when Docker cannot list them. */
int sandbox_containers_remove_leftovers(struct docker *d, const char *instance, size_t *removed,
					char **err);
/* Removes the orphans that Docker now lets go (before each run). */
void sandbox_containers_remove_orphans(struct sandbox_containers *ct);
/* Blocks until every container released so far is gone. */
void sandbox_containers_wait_removed(struct sandbox_containers *ct);

/* Creates, attaches and starts one container of trust level trust with
 * these limits, and watches its init. 0, or -EIO with *err (caller frees);
 * nothing is left behind on failure. */
int sandbox_container_prepare(struct sandbox_containers *ct, enum trust trust,
			      const struct sandbox_limits *limits, const char *job_label,
			      const struct sandbox_container_spec *spec,
			      struct sandbox_container *out, char **err);
/* Waits, at most max_ms, until the bootstrap of c (a container whose init
 * is watched) waits for its job: its interpreter has started and imported
 * what it needs, so a job that takes c from the pool does not wait for
 * that. Whether it does; false at once without a watch (gVisor, Docker's
 * way), where the job waits as before. */
bool sandbox_container_wait_idle(const struct sandbox_container *c, int64_t max_ms);
/* Gives c (a warm container of level trust) the memory, CPUs and pids of
 * want; tmpfs and ulimits stay as created. 0, or -EIO (logged) with c
 * discarded. */
int sandbox_container_update(struct sandbox_containers *ct, enum trust trust,
			     const struct sandbox_limits *want, struct sandbox_container *c);
/* Closes the stream, undoes the watch and removes the container; when
 * Docker cannot remove it now (logged), it is kept as an orphan. */
void sandbox_container_discard(struct sandbox_containers *ct, struct sandbox_container *c);
/* The same, with the removal left to the background. */
void sandbox_container_release(struct sandbox_containers *ct, struct sandbox_container *c);

#endif
