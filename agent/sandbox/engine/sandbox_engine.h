/* The engine seam: how the sandbox's runs reach an engine that runs
 * containers. The sandbox (sandbox.c) keeps the policy: the limits of each
 * trust level, the bootstrap and its input, the output caps, the verdicts
 * and the result. An engine only starts a run, waits for it while its
 * output comes in, reads how it ended and removes what it made. Two
 * backends implement it:
 *
 *  - the Docker engine (sandbox_engine_docker.c), local over its Unix
 *    socket or remote over TCP with mutual TLS: one container per run,
 *    attached before it starts, a warm pool, the end of a run and the
 *    cgroup counters from the local kernel where the engine is local;
 *  - Docker Swarm (swarm/): one replicated-job service per run, placed on
 *    a node labelled for its trust level, its output read from the
 *    service's logs.
 *
 * cmd/ picks the table once from the configuration and hands it to
 * sandbox_new() in struct sandbox_options. What a backend cannot do it says
 * through its capability flags, never through its name (STYLE.md habit 12).
 *
 * Each operation but open may be called from any worker thread; a run
 * handle belongs to one thread at a time.
 *
 * Stage times (stagetime.h, result.json's "stages_ms"): the sandbox marks
 * STAGE_CONTAINER when start returns, STAGE_OUTPUT when read has returned
 * and STAGE_REMOVAL when remove has; wait marks, on the run's thread, the
 * points only the backend sees: where the script ended (STAGE_SCRIPT), and
 * whatever of STAGE_CONTAINER, STAGE_END or STAGE_OUTPUT happens inside it
 * (a mark adds the time since the last one to its stage, so a stage may be
 * marked more than once). */
#ifndef MAI_SANDBOX_ENGINE_H
#define MAI_SANDBOX_ENGINE_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"
#include "sandbox_demux.h"
#include "sandbox_options.h"

enum sandbox_engine_caps {
	/* Warm containers started before their job (warm_up, warm_ready). */
	SANDBOX_ENGINE_CAN_POOL = 1u << 0,
	/* The end of a run from the local kernel (pidfd, process events). */
	SANDBOX_ENGINE_CAN_KERNEL_END = 1u << 1,
	/* Usage from the container's cgroup files on this machine. */
	SANDBOX_ENGINE_CAN_CGROUP = 1u << 2,
	/* The OCI runtime is chosen per run (else per node, by its daemon). */
	SANDBOX_ENGINE_HAS_RUNTIME_CHOICE = 1u << 3,
	/* The allowlist network with its filtering proxy (network: allowlist). */
	SANDBOX_ENGINE_CAN_ALLOWLIST = 1u << 4,
	/* Runs are placed on nodes that prove their own confinement (a probe
	 * per node): the sandbox's one-host self-test does not apply. */
	SANDBOX_ENGINE_PROBES_NODES = 1u << 5,
};

/* What an opened engine is; valid until close. */
struct sandbox_engine_info {
	const char *name;          /* "docker", "swarm" */
	const char *endpoint;      /* "unix:///var/run/docker.sock", "tcp://host:2376" */
	unsigned caps;             /* enum sandbox_engine_caps */
	const char *version;       /* the engine's version */
	int cgroup_version;        /* of the engine's host (of the manager for Swarm) */
	const char *image_id;      /* of the sandbox image */
	enum sandbox_exit_source exit_source; /* never AUTO */
	size_t leftovers;          /* removed at open */
	bool network;              /* the allowlist network is up */
	/* With network: where its filtering proxy runs, in words (status). */
	const char *proxy;
	/* The pip image (struct sandbox_pip, netproxy_conf.h) where the engine
	 * has the allowlist network; else NULL. */
	const struct sandbox_pip *pip;
	unsigned pool_size;        /* per trust level; 0: none */
};

struct sandbox_trust; /* the trust table: opaque to backends outside sandbox/ */

struct sandbox_engine_setup {
	const struct sandbox_options *opts;
	struct sandbox_trust *trust; /* borrowed; outlives the engine */
};

/* One run as the policy made it. */
struct sandbox_engine_spec {
	enum trust trust;
	const char *job_label;         /* the mai.job label */
	struct sandbox_limits limits;  /* scaled and clamped; timeout included */
	int64_t host_pids;             /* the PidsLimit the engine sets (more under gVisor) */
	int64_t core_bytes;            /* ulimit core, soft and hard (the policy's: 1) */
	const char *image;             /* NULL: the sandbox image */
	const char *program;           /* run as python3 -I -u -B -c program */
	bool bootstrap;                /* program is the bootstrap (it holds at the end) */
	bool network;                  /* join the allowlist network */
	bool warm_ok;                  /* a warm container may serve it */
	int64_t deps_tmpfs_bytes;      /* a tmpfs for dependencies; 0: none */
	const uint8_t *input;          /* what the program reads on stdin */
	size_t input_len;
};

/* What start placed; owned by the caller after start (free the strings). */
struct sandbox_engine_started {
	struct sandbox_limits limits; /* as applied (a warm container's) */
	char *id;                     /* container or service id */
	uint32_t uid;                 /* the run's uid and gid; 0: not known */
	const char *seccomp;          /* static: sandbox_result's seccomp */
};

/* How a run is waited for. */
struct sandbox_engine_io {
	struct sandbox_demux *demux;  /* stdout and stderr go here, capped */
	int64_t deadline_ms;          /* CLOCK_MONOTONIC */
	const atomic_bool *cancel;    /* the agent stops */
};

/* How a run ended, as read; strings owned (sandbox_engine_end_clear). */
struct sandbox_engine_end {
	bool killed;                /* the agent killed it (deadline, cap, cancel) */
	int64_t code;               /* exit status; 128 + n for signal n */
	bool oom_killed;
	int64_t peak_memory_bytes, cpu_ns, pids_peak;
	int64_t pids_limit_hits;    /* forks refused at the pids limit */
	int64_t oom_kills;
	bool ended_by_kernel;       /* the local kernel reported the end */
	bool usage_from_cgroup;     /* usage from the cgroup files, not the engine */
	const char *usage_source;   /* "cgroup", "engine_stats", "task" (static) */
	char *node;                 /* the node it ran on; NULL: the engine's host */
	/* When it began to run (CLOCK_MONOTONIC ms), for its wall-clock time;
	 * 0: when start returned (a container started by start itself). */
	int64_t began_ms;
	char *err;                  /* read failed: what happened */
};
void sandbox_engine_end_clear(struct sandbox_engine_end *e);

struct sandbox_engine_run; /* the backend's */

struct sandbox_engine_ops {
	const char *name;
	/* What every engine of this backend can do (enum sandbox_engine_caps);
	 * info()->caps may add what depends on where it answers. */
	unsigned caps;
	/* Connects, checks the image and runtimes, sweeps what an earlier run
	 * of this instance left. 0 with *ctx, or -EHOSTDOWN (the engine does
	 * not answer) or another -errno with *err (caller frees). */
	int (*open)(const struct sandbox_engine_setup *setup, void **ctx, char **err);
	/* After the self-test: what may now start ahead of jobs (the pool).
	 * May be NULL. */
	void (*warm_up)(void *ctx);
	/* Removes everything of the engine's, sweeps by label, frees ctx. */
	void (*close)(void *ctx);
	const struct sandbox_engine_info *(*info)(void *ctx);
	/* 0 when the engine answers; -EHOSTDOWN with *err when not. */
	int (*ping)(void *ctx, char **err);

	/* Starts one run: 0 with *run and *started, or -errno with *err and
	 * nothing left behind. */
	int (*start)(void *ctx, const struct sandbox_engine_spec *spec,
		     struct sandbox_engine_run **run, struct sandbox_engine_started *started,
		     char **err);
	/* Hands the run its input and reads its output into io->demux until it
	 * ends, the deadline, a cap, or cancel. *error gets a -errno for
	 * SANDBOX_ATTACH_ERROR. Never SANDBOX_ATTACH_EXITED. */
	enum sandbox_attach_end (*wait)(void *ctx, struct sandbox_engine_run *run,
					const struct sandbox_engine_io *io, int *error);
	/* Kills what still runs unless *how is EOF, and reads how it ended;
	 * may turn *how into DEADLINE (it outlived its deadline after its
	 * output closed). 0, or -EIO with out->err. */
	int (*read)(void *ctx, struct sandbox_engine_run *run, enum sandbox_attach_end *how,
		    const struct sandbox_engine_io *io, struct sandbox_engine_end *out);
	/* Removes the run's container or service (in the background where the
	 * engine can) and frees run. */
	void (*remove)(void *ctx, struct sandbox_engine_run *run);
	/* info()->pip has no image id (the pip image was missing at open):
	 * looks for the image again and sets its id when it is there now.
	 * Thread-safe. May be NULL: the engine found its pip image at open or
	 * has none. */
	void (*find_pip)(void *ctx);
	/* The limits of the trust levels changed (a reload). May be NULL. */
	void (*limits_changed)(void *ctx);
	/* Warm containers ready for trust level t. May be NULL. */
	unsigned (*warm_ready)(void *ctx, enum trust t);
	/* Blocks until every finished run's container is gone. May be NULL. */
	void (*wait_removed)(void *ctx);
	/* The nodes runs are placed on and what their probes proved (a JSON
	 * array; caller decrefs). May be NULL: the engine is one host. */
	json_t *(*nodes)(void *ctx);
	/* hold: the caller has a run in flight, or still work of its own after
	 * one (writing its answer), and the engine's background work (the warm
	 * pool's refill, removals) waits; !hold ends one hold. Thread-safe.
	 * May be NULL: the engine has no background work. */
	void (*hold_quiet)(void *ctx, bool hold);
};

#endif
