/* The Swarm part of the Engine API (v1.41) on a manager: nodes, configs,
 * overlay networks, services and their tasks and logs. The same client as
 * docker.h (struct docker), the same contract: every call returns a
 * docker_error and on failure *err (caller frees) says what to do; filled
 * structs are freed with their *_clear(). JSON is built and read by
 * docker_swarm_codec.c. */
#ifndef MAI_DOCKER_SWARM_H
#define MAI_DOCKER_SWARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker.h"

struct docker_swarm_node {
	char *id, *hostname;
	char *state;        /* "ready", "down", "unknown", "disconnected" */
	char *availability; /* "active", "pause", "drain" */
	char *addr;         /* the node's address as the manager sees it */
	char *label;        /* the value of the label asked for; NULL: none */
	char *engine_version;
	bool manager;
};

struct docker_swarm_task {
	char *id, *node_id;
	char *state;         /* "new" ... "running", "complete", "failed", "rejected", ... */
	char *desired_state;
	char *err;           /* Status.Err, "" when none */
	char *message;       /* Status.Message */
	char *container_id;  /* "" before the node made one */
	int64_t exit_code;   /* ContainerStatus.ExitCode */
	bool has_exit;
};

/* A Swarm config mounted read-only (mode 0444) as a file. */
struct docker_service_config {
	const char *id, *name, *target, *uid, *gid;
};

/* What a replicated-job service of one task is made with (see
 * docs/SCALING.md for what API 1.41 can and cannot set). */
struct docker_service_params {
	const char *name;
	const struct docker_label *labels;
	size_t n_labels;
	const char *image;
	const char *const *cmd;  /* NULL-terminated */
	const char *const *env;  /* NULL-terminated, may be NULL */
	const char *user, *workdir;
	int64_t memory_bytes, nano_cpus, pids_limit;
	int64_t tmpfs_bytes;     /* a tmpfs at /tmp (Docker mounts it noexec,nosuid,nodev) */
	int64_t deps_tmpfs_bytes; /* a second one at DOCKER_DEPS_DIR; 0: none */
	int64_t nofile, fsize_bytes;
	int64_t core_bytes;      /* RLIMIT_CORE, soft and hard */
	/* Per-uid kernel quotas of the run's uid (ulimits); 0: the node's
	 * default. */
	int64_t sigpending, msgqueue_bytes, memlock_bytes;
	const struct docker_service_config *configs;
	size_t n_configs;
	/* The networks (ids) its task joins, up to two; NULL ends the list. */
	const char *networks[2];
	/* A directory of the node mounted read-only (a probe's look at the
	 * node's own files); NULL: none. */
	const char *bind_source, *bind_target;
	const char *const *constraints; /* NULL-terminated placement constraints */
	int64_t log_max_bytes;   /* json-file max-size; two files are kept */
};

/* The node this engine is, when it is a manager of an active swarm: 0 with
 * *node_id (caller frees), else DOCKER_ERR_BAD_REQUEST with *err saying
 * so. */
enum docker_error docker_swarm_manager(struct docker *d, char **node_id, char **err);
/* Every node, with the value of label label_key. */
enum docker_error docker_node_list(struct docker *d, const char *label_key,
				   struct docker_swarm_node **nodes, size_t *n, char **err);
void docker_swarm_nodes_free(struct docker_swarm_node *nodes, size_t n);

/* A config holding data (at most 500 KiB, Swarm's limit). *id (caller frees). */
enum docker_error docker_config_create(struct docker *d, const char *name,
				       const struct docker_label *labels, size_t n_labels,
				       const void *data, size_t len, char **id, char **err);
/* An overlay network, not attachable; internal: no route out of it (no
 * gateway), else its tasks reach out through their node's docker_gwbridge. */
enum docker_error docker_overlay_create(struct docker *d, const char *name,
					const struct docker_label *labels, size_t n_labels,
					bool internal, char **id, char **err);
enum docker_error docker_service_create(struct docker *d, const struct docker_service_params *p,
					char **id, char **err);
/* The tasks of a service, newest last. */
enum docker_error docker_service_tasks(struct docker *d, const char *service_id,
				       struct docker_swarm_task **tasks, size_t *n, char **err);
void docker_swarm_tasks_free(struct docker_swarm_task *tasks, size_t n);
/* Frees the strings of one task and zeroes it. */
void docker_swarm_task_clear(struct docker_swarm_task *t);
/* What the service's tasks wrote so far, as Docker's multiplexed frames
 * (stdout and stderr, sandbox_demux.h); at most max_bytes. *out (caller
 * frees), *len. */
enum docker_error docker_service_logs(struct docker *d, const char *service_id, size_t max_bytes,
				      char **out, size_t *len, char **err);

/* The stream of a frame in those logs: what the task wrote to stdout or
 * stderr, or an error of the engine's own written among them ("Error
 * grabbing logs: ..." with Docker's stream number 3, Systemerr): a part of
 * the logs the swarm could not fetch, as from a node whose log session was
 * not there when asked ("node ... is not available"), which a loaded swarm
 * sees now and then. The frames that follow it are still the task's. */
enum docker_log_stream {
	DOCKER_LOG_STDOUT = 1,
	DOCKER_LOG_STDERR = 2,
	DOCKER_LOG_SYSTEM = 3,
};
struct docker_log_frame {
	enum docker_log_stream stream;
	const char *data; /* into the body read; not NUL-terminated */
	size_t len;
};
/* The frame of a docker_service_logs() body that begins at *off: 1 with
 * *frame and *off moved past it; 0 at the end of the whole frames (an empty
 * body, or a last frame cut short: *off stays at its start); -EPROTO when
 * the bytes at *off are not a frame header, with *err (caller frees)
 * showing them and where they are. */
int docker_swarm_codec_log_frame(const char *body, size_t len, size_t *off,
				 struct docker_log_frame *frame, char **err);

/* The Swarm objects an agent makes. */
enum docker_swarm_kind { DOCKER_SWARM_SERVICE, DOCKER_SWARM_CONFIG, DOCKER_SWARM_NETWORK };
/* Ids of the objects of a kind whose label key equals value (*ids
 * NULL-terminated, docker_strv_free). */
enum docker_error docker_swarm_list_by_label(struct docker *d, enum docker_swarm_kind kind,
					     const char *key, const char *value, char ***ids,
					     size_t *n, char **err);
/* A placement constraint no node meets. */
#define DOCKER_SWARM_NO_NODE "node.id==mai-stopped"
/* Stops the service's running task: its spec updated with the constraint
 * DOCKER_SWARM_NO_NODE, which makes the swarm shut down a task on a node
 * that no longer meets it. Removing a replicated-job service does not
 * (Docker 20.10: its task's container runs on). A service gone is not an
 * error. The task's end is to be waited for (docker_service_tasks()). */
enum docker_error docker_service_stop(struct docker *d, const char *service_id, char **err);
/* One gone (or a network the swarm is already deleting) is not an error. */
enum docker_error docker_swarm_remove(struct docker *d, enum docker_swarm_kind kind,
				      const char *id, char **err);

#endif
