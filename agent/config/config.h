/* The agent's configuration: four YAML files in one directory (agent.yaml,
 * security.yaml, sandbox.yaml, audit.yaml) loaded into typed structs through
 * one table of keys (config_keys.c). A missing file means its defaults; any
 * bad value is one error "file:line:col: what is wrong; expected ..." and
 * nothing of the new configuration is used.
 *
 * Units in the structs: sizes in bytes, durations in milliseconds (fields
 * end in _ms), CPUs in nano-CPUs (1.0 = 1000000000, as Docker's NanoCpus).
 * Relative paths in audit.yaml are already resolved against agent.state_dir. */
#ifndef MAI_CONFIG_H
#define MAI_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"
#include "macro.h"
#include "yamltree.h"

/* Where the files are looked for when neither --config-dir nor the
 * environment variable MAI_CONFIG_DIR says otherwise. */
#define CONFIG_DEFAULT_DIR "/etc/mai"
#define CONFIG_DIR_ENV "MAI_CONFIG_DIR"

/* sandbox.<level>.network */
enum config_network_mode {
	CONFIG_NETWORK_NONE,      /* NetworkMode "none" */
	CONFIG_NETWORK_ALLOWLIST, /* only network.allowed_hosts, through the filtering proxy */
};

/* agent.drop_mode */
enum config_drop_mode {
	CONFIG_DROP_WATCH, /* inotify on drop_dir */
	CONFIG_DROP_MOUNT, /* the agent serves drop_dir as a FUSE file system */
};

/* Trust levels, the index of config_sandbox.levels[]. */

/* A list of strings; items are owned by the configuration. */
struct config_strv {
	char **items;
	size_t n;
};

struct config_agent {
	char *drop_dir;
	char *state_dir;
	char *mount_point;
	int64_t workers;
	int64_t max_jobs_per_writer; /* queued or running; 0: no cap */
	bool recursive;
	int drop_mode;        /* enum config_drop_mode */
	char *drop_dir_mode;  /* octal text such as "2770"; "": leave it */
	char *drop_dir_group; /* group name or gid; "": leave it */
	uint64_t settle_delay_ms;
	uint64_t max_file_size;
	int log_level; /* enum log_level (log.h) */
	struct {
		char *socket;
		uint64_t api_timeout_ms;
		uint64_t retry_backoff_max_ms;
		uint64_t check_interval_ms;
	} docker;
};

struct config_analyzer {
	bool enabled;
	char *path;     /* program name (looked up in PATH) or absolute path */
	char *rules;    /* semgrep only: its --config value; "" = the analyzer's default */
	uint64_t timeout_ms;
};

struct config_analyzers {
	struct config_analyzer bandit;
	struct config_analyzer semgrep;
};

/* Copies the analyzers' settings, strings included, so that they outlive
 * the configuration they come from (a SIGHUP reload frees it). The copy is
 * the caller's: release it with config_analyzers_clear(). */
void config_analyzers_copy(struct config_analyzers *dst, const struct config_analyzers *src);
void config_analyzers_clear(struct config_analyzers *a);

struct config_security {
	struct {
		int64_t medium, high, blocked; /* score at or above which the level applies */
	} thresholds;
	struct config_analyzers analyzers;
	int64_t max_findings;
	/* Who may approve and override (approvers.h): names or decimal ids. */
	struct {
		struct config_strv users, groups;
	} approvers;
	bool allow_self_approval;
	/* The `rules:` list exactly as written (a YT_SEQUENCE, possibly empty);
	 * its schema belongs to the assessor. Owned by the configuration. */
	const struct yt_node *rules;
	/* The `bandit_checks:` list as written: how Bandit's findings count
	 * (the assessor's schema, like rules). */
	const struct yt_node *bandit_checks;
};

struct config_trust_limits {
	uint64_t memory;    /* Memory = MemorySwap */
	uint64_t nano_cpus;
	int64_t pids;
	uint64_t timeout_ms;
	uint64_t tmpfs_size;
	int64_t nofile;
	uint64_t fsize;
	int64_t sigpending;  /* ulimits of the run's own uid */
	uint64_t msgqueue;
	uint64_t memlock;
	/* "runc", "runsc", any runtime dockerd knows, or "auto": runsc when
	 * dockerd has it registered, else runc (resolved at start, cmd/). */
	char *runtime;
	int network;        /* enum config_network_mode */
	bool scale;         /* adapt the limits to the code's size and complexity */
};

/* The value of an INT key set to "auto" (config_keys.h, CONFIG_F_AUTO): the
 * module that uses it chooses. */
#define CONFIG_AUTO (-1)

enum config_engine_mode { CONFIG_ENGINE_DOCKER, CONFIG_ENGINE_SWARM };

struct config_sandbox {
	struct {
		int mode;           /* enum config_engine_mode */
		char *host;         /* "": DOCKER_HOST, else agent's docker.socket */
		struct { char *ca, *cert, *key; } tls; /* "": DOCKER_CERT_PATH's */
		char *node_label;   /* Swarm: the label key naming a node's trust level */
		uint64_t probe_timeout_ms;
	} engine;
	char *image;
	char *uid_range; /* "FIRST-LAST" (config_uid_range_parse) */
	int64_t pool_size;          /* CONFIG_AUTO: sized by the sandbox */
	bool self_test;
	uint64_t stdout_max;
	uint64_t stderr_max;
	struct {
		struct config_strv allowed_hosts;
		char *index_url;
		int64_t proxy_port;
		char *image;                 /* image with pip, for PEP 723 dependencies */
		char *proxy_image;           /* Swarm: the filtering proxy's image (tinyproxy) */
		uint64_t install_timeout_ms; /* one pip install */
		uint64_t install_size;       /* tmpfs the dependencies go to */
	} network;
	struct config_trust_limits levels[TRUST_COUNT];
};

struct config_audit {
	char *log_dir;
	char *signing_key;
	char *public_key;
	char *origin;
	bool fsync;
	uint64_t group_commit_delay_ms;
	uint64_t checkpoint_interval_ms;
	uint64_t rotate_size;
	uint64_t rotate_age_ms;      /* 0: no rotation by age */
	uint64_t retention_age_ms;   /* 0: keep every segment */
	uint64_t diff_max;
};

struct mai_config {
	struct config_agent agent;
	struct config_security security;
	struct config_sandbox sandbox;
	struct config_audit audit;
	char sha256[65]; /* of config_render()'s text, lower-case hex */

	/* private: parsed trees that raw values (security.rules) point into */
	struct yt_node **owned;
	size_t n_owned;
};

/* The directory to load: arg (--config-dir) when not NULL, else
 * $MAI_CONFIG_DIR when set and non-empty, else CONFIG_DEFAULT_DIR. A directory
 * named explicitly must exist (a typo must not silently mean "defaults");
 * the default one may be missing. Returns 0 and *dir (caller frees), or
 * -errno with *err (caller frees). */
int config_dir_resolve(const char *arg, char **dir, char **err) _must_check_;

/* Loads the four files of dir into a new configuration. A missing file means
 * its defaults (logged at debug; see config_note_missing()). Returns 0 and *out (free with config_free),
 * or -EINVAL / -errno and *err, one line "file:line:col: what is wrong;
 * expected ..." (caller frees). On error nothing is allocated in *out, so a
 * reload can keep the configuration it has. */
int config_load(const char *dir, struct mai_config **out, char **err) _must_check_;
/* The same without the configuration's hash (sha256 stays empty), which
 * costs a few milliseconds of OpenSSL's start: for a command that only
 * reads values (mai-agent check). */
int config_load_unhashed(const char *dir, struct mai_config **out, char **err) _must_check_;

void config_free(struct mai_config *cfg);

/* sandbox.uid_range's text "FIRST-LAST" as numbers: 0, or -EINVAL unless
 * 0 < FIRST <= LAST < 2147483647. */
int config_uid_range_parse(const char *s, uint32_t *first, uint32_t *last);

/* Says (at info) which of the four files dir lacks, so that their defaults
 * apply: once, from 'config check' and 'mai-agent run'; config_load() says
 * it only at debug. */
void config_note_missing(const char *dir) _nonnull_(1);

/* The keys whose value differs between the running configuration and a
 * newly loaded one but that only take effect at the next start (the table's
 * CONFIG_F_RESTART keys: agent.drop_dir, sandbox.image, audit.log_dir, ...),
 * as a JSON array of "file.key" strings in table order; empty when a reload
 * can apply everything. New reference; the caller decrefs. */
json_t *config_restart_changes(const struct mai_config *running, const struct mai_config *loaded);

/* The effective configuration as YAML, one section per file, every key, in
 * the order of the key table: the same values always give the same text.
 * Caller frees. */
char *config_render(const struct mai_config *cfg);

/* Every key with its type, default, range and help text, for
 * 'mai-agent config keys'. Caller frees. */
char *config_describe(void);

#endif
