/* The sandbox: runs one snapshot of a Python script in a fresh single-use
 * container created through the Docker Engine API with every default of
 * docs/ARCHITECTURE.md "Sandbox defaults". The code goes in over the attach stream's
 * stdin; stdout and stderr come back separately, each capped. The wall-clock
 * timeout is the agent's own timer ending in SIGKILL. The container is
 * removed after every run.
 *
 * sandbox_run() is thread-safe: the daemon calls it from its worker threads
 * with one struct sandbox shared by all of them. */
#ifndef MAI_SANDBOX_H
#define MAI_SANDBOX_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"

enum sandbox_verdict {
	SANDBOX_VERDICT_EXITED,        /* exit code or signal in the result */
	SANDBOX_VERDICT_TIMEOUT,       /* killed by the agent's wall-clock timer */
	SANDBOX_VERDICT_OOM_KILLED,    /* the memory limit's OOM killer struck */
	SANDBOX_VERDICT_OUTPUT_LIMIT,  /* stdout or stderr went past its cap: killed */
	SANDBOX_VERDICT_PIDS_LIMIT,    /* the cgroup's pids counter hit the limit */
	SANDBOX_VERDICT_SANDBOX_ERROR, /* Docker failed; message has its words */
};
const char *sandbox_verdict_to_string(enum sandbox_verdict v);

/* Limits of one run. Sizes in bytes, times in milliseconds. */
struct sandbox_limits {
	int64_t memory_bytes; /* Memory = MemorySwap */
	int64_t nano_cpus;
	int64_t pids;
	int64_t tmpfs_bytes;
	int64_t nofile;
	int64_t fsize_bytes;
	int64_t timeout_ms;
	int64_t stdout_max, stderr_max;
};

struct sandbox_trust_options {
	struct sandbox_limits base; /* before scaling and clamping */
	const char *runtime;        /* "runc" (default) or "runsc" */
	bool no_scale;              /* keep base as is (still clamped by the machine) */
	/* Joins the internal sandbox network whose only way out is the
	 * filtering proxy; PEP 723 dependencies are installed at this level. */
	bool network_allowlist;
};

/* The allowlist mode (network.* in config/sandbox.yaml). Used only when a
 * trust level has network_allowlist. */
struct sandbox_network_options {
	const char *state_dir;            /* the proxy's files go to state_dir/proxy */
	const char *const *allowed_hosts; /* exact host names */
	size_t n_hosts;
	const char *index_url;            /* pip's --index-url */
	int proxy_port;
	const char *image;                /* with python3-pip; NULL: "mai-sandbox-pip:latest" */
	int64_t install_timeout_ms;       /* one pip install; 0: 120 s */
	int64_t install_size;             /* tmpfs of the dependencies; 0: 256 MiB */
	const char *proxy_program;        /* NULL: "tinyproxy" */
};

/* How the end of a run is learnt without waiting for Docker to tear the
 * container down (sandbox_attach.h). AUTO: the kernel's pidfds where they
 * report exit statuses (Linux 6.15+), else its process events connector
 * (needs root in the host's namespaces), else Docker. The others force one
 * way (tests, benchmarks). */
enum sandbox_exit_source {
	SANDBOX_EXIT_AUTO,
	SANDBOX_EXIT_PIDFD,
	SANDBOX_EXIT_NETLINK,
	SANDBOX_EXIT_DOCKER,
};

struct sandbox_options {
	const char *socket_path;  /* NULL: the default Docker socket */
	const char *image;        /* NULL: "mai-sandbox:latest" */
	const char *user;         /* NULL: "1000:1000" */
	/* The value of the mai.instance label: containers with it that exist at
	 * sandbox_new() are leftovers of an earlier run of this agent and are
	 * removed. Stable across restarts of one agent; NULL: "default". */
	const char *instance_id;
	unsigned workers;         /* concurrent runs sharing the machine; 0: 1 */
	/* Warm containers per trust level; 0: none; SANDBOX_POOL_AUTO: sized
	 * from the machine (sandbox_pool_auto_size). */
	unsigned pool_size;
	bool self_test;           /* run the confinement probes in sandbox_new */
	enum sandbox_exit_source exit_source;
	struct sandbox_trust_options trust[TRUST_COUNT];
	struct sandbox_network_options network;
};

#define SANDBOX_POOL_AUTO UINT_MAX
/* What one idle warm container holds, measured with runc (cgroup v1, the
 * mai-sandbox image): about 3 MB charged to its cgroup (the bootstrap's
 * python3 waiting on stdin and docker-init) and 5 MB for its
 * containerd-shim on the host, about 8 MB in all; this budget counts twice
 * that. Under runsc gVisor's sentry and gofer hold tens of MB more. */
#define SANDBOX_POOL_IDLE_BYTES (16LL << 20)

/* The warm pool's size per trust level for this machine: 2 (the size at which
 * a drop on an idle agent always finds a warm container while the one it
 * used is replaced), at most the number of workers and of CPUs, and only as
 * many as fit in a sixteenth of the available memory at
 * SANDBOX_POOL_IDLE_BYTES each for the three trust levels (0 below about
 * 768 MB available). */
unsigned sandbox_pool_auto_size(int64_t cpus_nano, int64_t memory_available, unsigned workers);

/* Fills opts with the built-in defaults. */
void sandbox_options_defaults(struct sandbox_options *opts);

/* From the assessor: the shape of the code, used to scale the limits. */
struct sandbox_code_metrics {
	size_t bytes, lines, loops, imports, max_nesting;
};


struct sandbox_job {
	const char *job_id;     /* goes into the mai.job label */
	const char *file_name;  /* what tracebacks show, e.g. "foo.py" */
	const uint8_t *code;
	size_t len;
	enum trust trust;
	struct sandbox_code_metrics metrics;
	/* PEP 723 dependencies (requirement strings, checked by
	 * pep723_check_dependencies) installed with pip before the script runs;
	 * only at a trust level with network_allowlist. */
	const char *const *dependencies;
	size_t n_dependencies;
};

struct sandbox_output {
	char *data;         /* NUL terminated, at most the cap; owned by the result */
	size_t len;         /* bytes in data */
	uint64_t total;     /* bytes the script wrote */
	bool truncated;
};

struct sandbox_result {
	enum sandbox_verdict verdict;
	int exit_code;      /* -1 when killed by the agent */
	int signal;         /* the signal that ended the script, 0 if none */
	struct sandbox_output out, err;
	int64_t wall_ms, cpu_ms;
	int64_t peak_memory_bytes;
	int64_t pids_peak;
	struct sandbox_limits limits; /* as applied */
	enum trust trust;
	char *runtime, *image, *image_id, *docker_version, *container_id;
	int cgroup_version;
	char *message;      /* one line; NULL for a clean exit 0 */
	/* The end came from the kernel (the init's pidfd, with all output in),
	 * not from Docker's end of stream: see sandbox_attach.h. */
	bool ended_by_kernel;
	/* For a job with dependencies: what pip did ({"ok", "installed": [{name,
	 * version, url, hashes}], ...}); NULL otherwise. Owned. */
	json_t *dependencies;
};

struct sandbox;

/* The pool size in force (per trust level, after auto sizing); 0: none. */
unsigned sandbox_pool_size(const struct sandbox *sb);

/* Connects to Docker, checks the image and the runtime of every trust level
 * (a missing runtime is an error here, not at the first job), removes the
 * leftovers of this instance and, when asked, runs the self-test. On failure
 * returns a negative value (-EHOSTDOWN when Docker does not answer at all)
 * and *err (caller frees) says what to do. *out is
 * freed with sandbox_free(). */
int sandbox_new(const struct sandbox_options *opts, struct sandbox **out, char **err);
void sandbox_free(struct sandbox *sb);
/* 0 when Docker answers; -EHOSTDOWN with *err (caller frees) when not. */
int sandbox_ping(struct sandbox *sb, char **err);
/* How many leftover containers sandbox_new() removed. */
size_t sandbox_leftovers_removed(const struct sandbox *sb);

/* Runs one job. Always fills *out (clear it with sandbox_result_clear());
 * returns 0 when the script ran (whatever its verdict), or a negative value
 * when the sandbox could not run it (then verdict is sandbox_error). */
int sandbox_run(struct sandbox *sb, const struct sandbox_job *job, struct sandbox_result *out);
/* Makes every sandbox_run() in flight (and every later one) kill its
 * container, remove it and return -ECANCELED within about a second: the
 * agent is stopping. Thread-safe. */
void sandbox_cancel_all(struct sandbox *sb);
/* A run's container is removed in the background once its result is known
 * (and at the latest by sandbox_free()); this blocks until every container
 * of a finished run is gone. */
void sandbox_wait_removed(struct sandbox *sb);

/* A reload: takes the base limits and scaling of every trust level from
 * opts (the rest of opts is ignored: image, runtime, network, pool size and
 * socket need a new sandbox). Runs already started keep their limits; later
 * ones, warm or cold, get the new ones. Returns whether anything changed.
 * Thread-safe. */
bool sandbox_set_limits(struct sandbox *sb, const struct sandbox_options *opts);

/* Whether trust level t joins the sandbox network (network: allowlist). */
bool sandbox_trust_has_network(const struct sandbox *sb, enum trust t);

/* Parses the TOML of a PEP 723 block (pep723_locate) with Python's tomllib
 * in a container of the pip image without any network. 0 with *table (the
 * TOML table as JSON; caller decrefs); -EINVAL with *err (caller frees)
 * saying what is wrong with the TOML; -ENOENT when the pip image is missing;
 * another -errno when the container could not run (then retry). */
int sandbox_parse_toml(struct sandbox *sb, const char *toml, size_t len, json_t **table,
		       char **err);

/* The "execution" object of result.json; the caller owns the reference. */
json_t *sandbox_result_to_json(const struct sandbox_result *r);
void sandbox_result_clear(struct sandbox_result *r);

#endif
