/* What a sandbox is made with: the engine, per trust level the limits,
 * runtime and network, the allowlist network, how the end of a run is
 * learnt. Value types, and their built-in defaults (sandbox_options.c). */
#ifndef MAI_SANDBOX_OPTIONS_H
#define MAI_SANDBOX_OPTIONS_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"

/* Limits of one run. Sizes in bytes, times in milliseconds. */
struct sandbox_limits {
	int64_t memory_bytes; /* Memory = MemorySwap */
	int64_t nano_cpus;
	int64_t pids;
	int64_t tmpfs_bytes;
	int64_t nofile;
	int64_t fsize_bytes;
	/* Kernel quotas of the run's own uid (ulimits): pending signals,
	 * POSIX message-queue bytes, locked memory. Inotify instances and pipe
	 * pages have no per-container knob; the run's own uid isolates them. */
	int64_t sigpending, msgqueue_bytes, memlock_bytes;
	int64_t timeout_ms;
	int64_t stdout_max, stderr_max;
};

/* gVisor's own kernel (the Sentry) and file proxy run as host threads inside
 * the container's pids cgroup, about 40 at rest and more under load, while
 * the script's processes are the Sentry's tasks. Under runsc the host-side
 * PidsLimit therefore gets this allowance on top of the configured pids, so
 * that the configured number stays what the script may start. */
#define SANDBOX_RUNSC_PIDS_ALLOWANCE 128

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
	/* Swarm: the image of each run's proxy service (tinyproxy in PATH);
	 * NULL: "mai-sandbox-proxy:latest". */
	const char *proxy_image;
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

struct sandbox_engine_ops;

/* The engine (engine: in config/sandbox.yaml; sandbox_engine.h). */
struct sandbox_engine_options {
	/* The backend, picked by cmd/ (NULL: sandbox_engine_docker). */
	const struct sandbox_engine_ops *ops;
	/* "unix:///path" or "tcp://HOST:PORT"; NULL: socket_path. */
	const char *host;
	const char *tls_ca, *tls_cert, *tls_key; /* PEM files, for tcp:// */
	/* Swarm: the node label whose value names the trust level a node
	 * serves; a run is constrained to node.labels.KEY==<its level>.
	 * NULL: "mai.trust". */
	const char *node_label_key;
	int64_t probe_timeout_ms; /* one node's probe; 0: 60 s */
	/* Called after each round of node probes once the engine is open (a
	 * node that joined, came back or was relabelled), with the engine's
	 * name and host and every node's state (as sandbox_nodes()), from the
	 * thread that placed a run; may be NULL. For the audit log. */
	void (*probed)(void *arg, const char *name, const char *host, json_t *nodes);
	void *probed_arg;
};

struct sandbox_options {
	const char *socket_path;  /* NULL: the default Docker socket */
	struct sandbox_engine_options engine;
	const char *image;        /* NULL: "mai-sandbox:latest" */
	/* The uids (and gids, the same numbers) reserved for the containers,
	 * one per container in flight (sandbox_uids.h); by default
	 * SANDBOX_UID_FIRST..SANDBOX_UID_LAST. */
	uint32_t uid_first, uid_last;
	/* Check at start that no account, process or file of the host uses
	 * the range (sandbox_uidcheck.h), and refuse to start when one does. */
	bool uid_check;
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

/* Fills opts with the built-in defaults. */
void sandbox_options_defaults(struct sandbox_options *opts);

/* The default uid range: 65536 ids from 0x70000000, above what systemd
 * gives containers (524288-1879048191) and useradd gives subordinate ids
 * (100000 up to 600100000), below its foreign-image range (from 2147352576)
 * and 2^31 (where signed ids go wrong). */
#define SANDBOX_UID_FIRST 1879048192u
#define SANDBOX_UID_LAST 1879113727u

#define SANDBOX_POOL_AUTO UINT_MAX
/* What one idle warm container holds, measured with runc (cgroup v1, the
 * mai-sandbox image): about 3 MB charged to its cgroup (the bootstrap's
 * python3 waiting on stdin and docker-init) and 5 MB for its
 * containerd-shim on the host, about 8 MB in all; this budget counts twice
 * that. Under runsc gVisor's sentry and gofer hold tens of MB more. */
#define SANDBOX_POOL_IDLE_BYTES (16LL << 20)

#endif
