/* The Docker Engine API's values as the agent uses them: what a call fills
 * and what a container is created with. Their own header so that the codec
 * (docker_codec.c), which builds and reads them, depends on these types and
 * not on the client that uses it (docker.c). Each struct a call fills is
 * freed with its *_clear(). */
#ifndef MAI_DOCKER_TYPES_H
#define MAI_DOCKER_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct docker_version {
	char *version, *api_version, *kernel_version, *os, *arch;
};

struct docker_info {
	char *server_version;
	int cgroup_version;   /* 1 or 2 */
	char *cgroup_driver;  /* "cgroupfs", "systemd" */
	char **runtimes;      /* names, n_runtimes of them */
	size_t n_runtimes;
	char *default_runtime;
	long ncpu;
	int64_t mem_total;
	bool memory_limit, swap_limit, pids_limit, seccomp;
	bool userns; /* dockerd runs with userns-remap */
};

struct docker_image {
	char *id; /* "sha256:..." */
	int64_t size;
	char *os, *arch;
};

struct docker_container_state {
	char *status; /* "created", "running", "exited", ... */
	bool running, oom_killed;
	int exit_code;
	int pid;
	char *error;  /* Docker's message, "" when none */
};

struct docker_stats {
	int64_t mem_usage, mem_max_usage; /* bytes; max_usage 0 where the cgroup keeps no peak */
	int64_t pids_current;
	uint64_t cpu_total_ns;
	bool valid; /* false when the container is gone (all zero) */
};

struct docker_label {
	const char *key, *value;
};

/* What a container is created with; see docs/ARCHITECTURE.md "Sandbox defaults".
 * docker_codec_create_body() always adds the fixed hardening (read-only
 * root, CapDrop ALL, no-new-privileges, Init, logging none, no network). */
struct docker_create_params {
	const char *image;
	const char *const *cmd; /* NULL-terminated */
	const char *const *env; /* NULL-terminated, may be NULL */
	const char *user;       /* "1000:1000" */
	const char *workdir;    /* "/tmp" */
	const struct docker_label *labels;
	size_t n_labels;
	int64_t memory_bytes;   /* Memory = MemorySwap */
	int64_t nano_cpus;
	int64_t pids_limit;
	int64_t tmpfs_bytes;    /* size of the noexec tmpfs at /tmp */
	int64_t nofile;
	int64_t fsize_bytes;
	/* Per-uid kernel quotas of the container's uid: pending signals,
	 * POSIX message-queue bytes, locked memory; 0: Docker's default. */
	int64_t sigpending, msgqueue_bytes, memlock_bytes;
	int64_t core_bytes;     /* ulimit core (0 or 1: no core file) */
	/* HostConfig.MaskedPaths, NULL-terminated: replaces Docker's list;
	 * NULL: Docker's. */
	const char *const *masked_paths;
	/* SecurityOpt "seccomp=<this JSON>"; NULL: Docker's default profile. */
	const char *seccomp_profile;
	const char *runtime;    /* NULL: "runc" */
	bool open_stdin;        /* keep stdin open for the attach stream */
	/* NULL: no network at all (NetworkMode "none", NetworkDisabled).
	 * Else the name of the (internal) network the container joins. */
	const char *network;
	/* Size of a second tmpfs at DOCKER_DEPS_DIR (exec allowed: installed
	 * packages may hold compiled modules); 0: none. */
	int64_t deps_tmpfs_bytes;
};

/* The network option that names a bridge network's interface on the host. */
#define DOCKER_BRIDGE_NAME_OPTION "com.docker.network.bridge.name"
/* The bridge network option that, "false", keeps its containers from
 * reaching one another (inter-container communication). */
#define DOCKER_BRIDGE_ICC_OPTION "com.docker.network.bridge.enable_icc"

/* Where a job's dependencies are installed (see deps_tmpfs_bytes). */
#define DOCKER_DEPS_DIR "/mai-deps"

/* A network as inspected: its id, whether it is internal (no route out),
 * its first IPAM subnet and gateway and its bridge interface's name ("" when
 * Docker reports none). */
struct docker_network {
	char *id, *name;
	bool internal;
	char *subnet, *gateway;
	char *bridge;
	bool icc;     /* its containers reach one another (enable_icc not "false") */
};

void docker_network_clear(struct docker_network *n);
void docker_version_clear(struct docker_version *v);
void docker_info_clear(struct docker_info *i);
void docker_image_clear(struct docker_image *i);
void docker_container_state_clear(struct docker_container_state *s);
void docker_strv_free(char **v);
bool docker_info_has_runtime(const struct docker_info *i, const char *name);

#endif
