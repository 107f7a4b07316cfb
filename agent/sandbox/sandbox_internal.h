/* Private to the sandbox's files (sandbox.c, sandbox_pool.c,
 * sandbox_selftest.c). */
#ifndef MAI_SANDBOX_INTERNAL_H
#define MAI_SANDBOX_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "docker.h"
#include "sandbox.h"
#include "sandbox_attach.h"
#include "sandbox_limits.h"
#include "sandbox_quiet.h"

struct sandbox_pool;

struct sandbox {
	struct docker *docker;
	char *image, *image_id, *user, *instance;
	char *docker_version;
	int cgroup_version;
	/* base and no_scale change on a reload (sandbox_set_limits): read them
	 * with sandbox_trust_base(). The rest is fixed at sandbox_new(). */
	struct sandbox_trust_options trust[TRUST_COUNT];
	pthread_mutex_t trust_lock;
	char *runtime[TRUST_COUNT];
	struct sandbox_machine machine;
	unsigned workers;
	size_t leftovers;
	struct sandbox_pool *pool; /* NULL when pool_size is 0 */
	struct sandbox_reaper *reaper; /* removes finished containers */
	struct sandbox_quiet quiet;    /* runs in flight */
	atomic_bool cancelled;     /* set by sandbox_cancel_all() */
	/* Containers whose removal failed (Docker went away mid-run): removed
	 * before the next run, and at sandbox_free. Under orphans_lock. */
	pthread_mutex_t orphans_lock;
	char **orphans;
	size_t n_orphans;
	/* The allowlist mode (sandbox_net.c). net_name NULL: no level uses it. */
	char *net_name;
	bool net_filtered;         /* its packet filter is installed (netfilter.h) */
	struct netproxy *proxy;
	char **net_env;            /* NULL-terminated container env for that mode */
	char *pip_image, *pip_image_id; /* pip_image_id NULL: the image is missing */
	char *index_url;
	int64_t install_timeout_ms, install_size;
	/* How a container's end is learnt (sandbox_exit.c): PIDFD, NETLINK
	 * (through procexit) or DOCKER, never AUTO. */
	enum sandbox_exit_source exit_source;
	struct procexit *procexit;
};

/* What a container is created with beyond its limits. */
struct sandbox_container_spec {
	const char *image;        /* NULL: sb->image */
	const char *program;      /* python source run with -I -u -B -c; NULL: the bootstrap */
	bool network;             /* join the sandbox network (allowlist levels) */
	int64_t deps_tmpfs_bytes; /* a tmpfs for dependencies; 0: none */
};

/* The container's program (sandbox_bootstrap.c): run as python3 -I -u -B
 * -c; reads the job from stdin (sandbox_job_input) and writes the end
 * marker when the interpreter exits (sandbox_attach.h). */
extern const char sandbox_bootstrap[];
#define SANDBOX_NONCE_LEN 32
/* A fresh nonce (hex) and the end marker the bootstrap writes with it. */
void sandbox_end_marker(char nonce[SANDBOX_NONCE_LEN + 1], char marker[SANDBOX_MARKER_MAX + 1]);
/* The bootstrap's stdin for the job (caller frees; *len its length); spec
 * the dependencies' JSON or NULL. */
uint8_t *sandbox_job_input(const struct sandbox_job *job, const char *spec, const char *nonce,
			   size_t *len);

/* A created, attached and started container whose bootstrap waits for its
 * job on stdin. */
struct sandbox_container {
	char *id;
	struct docker_stream *stream;
	struct sandbox_limits limits; /* as created */
	/* Its init, watched (sandbox_exit.c): a pidfd when has_pidfd, or a
	 * watch of the process events; neither: the run waits for Docker. */
	int init_pidfd;
	bool has_pidfd;
	struct procexit_watch *init_watch;
};

/* The end of a run from the kernel (sandbox_exit.c). start picks the way
 * (opts: AUTO or forced; a forced way that is not available falls back to
 * Docker, logged) and stop ends it, after every container is gone. */
void sandbox_exit_start(struct sandbox *sb, enum sandbox_exit_source want);
void sandbox_exit_stop(struct sandbox *sb);
/* Watches the init of a started container, if the way allows (not under
 * gVisor, whose init is no host process); unwatch undoes it. */
void sandbox_exit_watch(struct sandbox *sb, enum trust trust,
			struct sandbox_container *c);
void sandbox_exit_unwatch(struct sandbox *sb, struct sandbox_container *c);
/* The pump's watch of c's init (fd -1 when none). */
void sandbox_exit_pump_watch(struct sandbox_container *c, struct sandbox_exit_watch *w);

/* Whether the trust level runs under gVisor (runtime runsc): its jobs
 * meet gVisor's kernel, and gVisor's own threads share their pids cgroup. */
bool sandbox_is_gvisor(const struct sandbox *sb, enum trust trust);

/* Creates, attaches and starts one container with these limits. 0, or
 * -EIO with *err (caller frees); nothing is left behind on failure. */
int sandbox_container_prepare(struct sandbox *sb, enum trust trust,
			      const struct sandbox_limits *limits, const char *job_label,
			      const struct sandbox_container_spec *spec,
			      struct sandbox_container *out, char **err);
/* Closes the stream and removes the container; when Docker cannot remove
 * it now (logged), it is kept as an orphan that the next run removes. */
void sandbox_container_discard(struct sandbox *sb, struct sandbox_container *c);
/* The same, with the removal left to the background (sandbox_reap.h). */
void sandbox_container_release(struct sandbox *sb, struct sandbox_container *c);

/* How sandbox_run_internal runs a job beyond what the job says. */
struct sandbox_run_mode {
	/* A floor under the wall-clock timeout: the self-test's probes must not
	 * fail because a loaded machine starts python slowly. */
	int64_t min_timeout_ms;
	/* No network whatever the level says (self-test probes, TOML parsing). */
	bool no_network;
	const char *image;   /* NULL: the image the job calls for */
	const char *program; /* NULL: the bootstrap */
};

/* The current base limits of trust level t and whether they scale
 * (sandbox_reload.c); no_scale may be NULL. Thread-safe. */
void sandbox_trust_base(struct sandbox *sb, enum trust t, struct sandbox_limits *base,
			bool *no_scale);

int sandbox_run_internal(struct sandbox *sb, const struct sandbox_job *job,
			 const struct sandbox_run_mode *mode, struct sandbox_result *out);

/* The allowlist mode (sandbox_net.c): creates the internal network, starts
 * the proxy on its gateway and checks the pip image. 0, or -errno with *err. */
int sandbox_net_start(struct sandbox *sb, const struct sandbox_network_options *o, char **err);
/* Stops the proxy and removes the network. */
void sandbox_net_stop(struct sandbox *sb);

/* Dependencies (sandbox_deps.c): the JSON spec the bootstrap reads before
 * the script (caller frees), and taking pip's report off the front of the
 * script's stdout into r->dependencies (with a message when it failed). */
char *sandbox_deps_spec(const struct sandbox *sb, const struct sandbox_job *job);
void sandbox_deps_collect(struct sandbox_result *r);

/* The pool (sandbox_pool.c). start returns NULL when size is 0. take gives
 * a container for the trust level if one is ready (0) or -EAGAIN. */
struct sandbox_pool *sandbox_pool_start(struct sandbox *sb, unsigned size);
int sandbox_pool_take(struct sandbox_pool *p, enum trust trust,
		      struct sandbox_container *out);
/* Removes every container waiting (created with limits a reload changed);
 * the refill thread makes new ones. */
void sandbox_pool_flush(struct sandbox_pool *p);
/* Stops the refill thread and removes every container still waiting. */
void sandbox_pool_stop(struct sandbox_pool *p);
/* Containers ready now for the trust level (for tests and status). */
unsigned sandbox_pool_ready(struct sandbox_pool *p, enum trust trust);

#endif
