/* The one table of configuration keys: every key the four files may hold,
 * with its type, default, range and help text. The loader, the renderer,
 * 'mai-agent config keys' and the tests all walk this table; the shipped
 * files in config/ hold every key of it. Keys of one section stay together
 * (the renderer relies on it). */
#include "config_keys.h"
#include "utf8.h"

#include <string.h>

#include "account.h"
#include "config.h"

#define OFF(field) offsetof(struct mai_config, field)

#define KB (1LL << 10)
#define MB (1LL << 20)
#define GB (1LL << 30)
#define MS 1LL
#define SEC (1000 * MS)
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)
#define NANO_CPU 1000000000LL

static const char *const log_levels[] = { "error", "warn", "info", "debug", NULL };
static const char *const network_modes[] = { "none", "allowlist", NULL };
static const char *const drop_modes[] = { "watch", "mount", NULL };
static const char *const engine_modes[] = { "docker", "swarm", NULL };

static int config_all_of(const char *s, const char *accept)
{
	return *s && s[strspn(s, accept)] == '\0';
}

#define DIGITS "0123456789"
#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

int config_uid_range_parse(const char *s, uint32_t *first, uint32_t *last)
{
	const char *dash = strchr(s, '-');
	size_t a_len = dash ? (size_t)(dash - s) : 0;
	char *end;

	if (!dash || a_len == 0 || a_len > 10 || strspn(s, DIGITS) != a_len ||
	    strlen(dash + 1) > 10 || !config_all_of(dash + 1, DIGITS))
		return -EINVAL;
	unsigned long long a = strtoull(s, &end, 10), b = strtoull(dash + 1, &end, 10);
	/* Not root, and below 2^31 - 1: ids from 2^31 up are read as negative
	 * by some programs, and 2^32 - 1 is the kernel's "no id". */
	if (a == 0 || b < a || b >= 0x7fffffffULL)
		return -EINVAL;
	*first = (uint32_t)a;
	*last = (uint32_t)b;
	return 0;
}

static const char *check_uid_range(const char *s)
{
	uint32_t a, b;

	if (config_uid_range_parse(s, &a, &b) < 0)
		return "a range of uids FIRST-LAST with 0 < FIRST <= LAST < 2147483647, such as "
		       "1879048192-1879113727";
	return NULL;
}

static const char *check_dir_mode(const char *s)
{
	size_t n = strlen(s);
	if ((n != 3 && n != 4) || !config_all_of(s, "01234567"))
		return "permissions in octal, quoted, such as \"2770\" (setgid, rwx for owner and "
		       "group), or \"\" to leave them as they are";
	return NULL;
}

static const char *check_group(const char *s)
{
	if (strlen(s) > 32 || !config_all_of(s, LOWER UPPER DIGITS "._-") || s[0] == '-')
		return "a group name or a numeric gid, such as mai-drop, or \"\" to leave the "
		       "group as it is";
	return NULL;
}

static const char *check_image(const char *s)
{
	if (!config_all_of(s, LOWER UPPER DIGITS "._-/:@"))
		return "an image reference such as mai-sandbox:latest";
	return NULL;
}

static const char *check_runtime(const char *s)
{
	if (!config_all_of(s, LOWER UPPER DIGITS "._-"))
		return "a runtime name known to dockerd, such as runc or runsc";
	return NULL;
}

static const char *check_account(const char *s)
{
	if (!account_name_valid(s))
		return "user or group names (letters, digits, '.', '_', '-') or numeric ids, such "
		       "as root or mai-approvers";
	return NULL;
}

static const char *check_program(const char *s)
{
	if (!*s || strpbrk(s, " \t\n"))
		return "a program name or path without spaces, such as bandit";
	return NULL;
}

static const char *check_host(const char *s)
{
	if (strlen(s) > 253 || !config_all_of(s, LOWER UPPER DIGITS ".-") || s[0] == '.' ||
	    s[0] == '-')
		return "host names such as pypi.org";
	return NULL;
}

static const char *check_url(const char *s)
{
	if ((strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0) ||
	    strpbrk(s, " \t\n"))
		return "an http:// or https:// URL such as https://pypi.org/simple";
	return NULL;
}

/* "" (DOCKER_HOST, else docker.socket) is taken before a check
 * (CONFIG_F_EMPTY); check("") gives the message, as for every key. */
static const char *check_docker_host(const char *s)
{
	if (strncmp(s, "unix:///", 8) != 0 && strncmp(s, "tcp://", 6) != 0)
		return "unix:///path/to/docker.sock or tcp://HOST:2376 (TCP only with tls), or "
		       "\"\" for DOCKER_HOST or agent.yaml's docker.socket";
	if (strpbrk(s, " \t\n"))
		return "a Docker host without spaces";
	return NULL;
}

static const char *check_label_key(const char *s)
{
	if (!config_all_of(s, LOWER DIGITS ".-_") || s[0] == '.' || strlen(s) > 100)
		return "a node label key such as mai.trust";
	return NULL;
}

static const char *check_origin(const char *s)
{
	/* The origin is the first line of every signed checkpoint (C2SP
	 * tlog-checkpoint) and the name of the key that signs it: UTF-8 without
	 * control characters, Unicode spaces or '+', as signed-note wants. */
	static const char *const want = "a non-empty UTF-8 name without spaces, '+' or control characters, such as mai-agent/audit";
	size_t n = strlen(s);
	uint32_t cp;

	if (n == 0)
		return want;
	for (size_t i = 0; i < n;) {
		int k = utf8_decode(s + i, n - i, &cp);
		if (k < 0 || cp < 0x20 || cp == 0x7f || cp == '+' || utf8_is_space(cp))
			return want;
		i += (size_t)k;
	}
	return NULL;
}

#define KEY(f, p, t, d, lo, hi, fl, chk, h, field)                                      \
	{ .file = CONFIG_FILE_##f, .path = p, .type = CONFIG_##t, .def = d, .min = lo,   \
	  .max = hi, .flags = fl, .check = chk, .help = h, .offset = OFF(field) }
#define ENUM_KEY_F(f, p, d, vals, fl, h, field)                                         \
	{ .file = CONFIG_FILE_##f, .path = p, .type = CONFIG_ENUM, .def = d,             \
	  .values = vals, .flags = fl, .help = h, .offset = OFF(field) }
#define ENUM_KEY(f, p, d, vals, h, field) ENUM_KEY_F(f, p, d, vals, 0, h, field)
/* Keys that need a restart carry RESTART: what the running agent has built
 * from them (the watch, the worker pool, the Docker client, the warm pool,
 * the sandbox network, the open audit log) stays as it was started. */
#define RESTART CONFIG_F_RESTART

#define TRUST_KEYS(name, i, d_mem, d_cpus, d_pids, d_timeout, d_tmpfs, d_nofile, d_fsize, d_sigpending, \
		   d_msgqueue, d_memlock, d_runtime)                                             \
	KEY(SANDBOX, name ".memory", SIZE, d_mem, 16 * MB, 1024 * GB, 0, NULL,                   \
	    "memory limit (Memory = MemorySwap, so no swap)", sandbox.levels[i].memory),        \
	KEY(SANDBOX, name ".cpus", CPUS, d_cpus, NANO_CPU / 100, 1024 * NANO_CPU, 0, NULL,        \
	    "CPUs as a decimal number (NanoCpus)", sandbox.levels[i].nano_cpus),                \
	KEY(SANDBOX, name ".pids", INT, d_pids, 8, 32768, 0, NULL,                                \
	    "most processes and threads (PidsLimit)", sandbox.levels[i].pids),                   \
	KEY(SANDBOX, name ".timeout", DURATION, d_timeout, 1 * SEC, 24 * HOUR, 0, NULL,          \
	    "wall-clock limit of one run, enforced by the agent", sandbox.levels[i].timeout_ms), \
	KEY(SANDBOX, name ".tmpfs_size", SIZE, d_tmpfs, 1 * MB, 64 * GB, 0, NULL,                \
	    "size of the writable /tmp (noexec,nosuid,nodev)", sandbox.levels[i].tmpfs_size),   \
	KEY(SANDBOX, name ".nofile", INT, d_nofile, 16, 1048576, 0, NULL,                        \
	    "most open files (ulimit nofile)", sandbox.levels[i].nofile),                       \
	KEY(SANDBOX, name ".fsize", SIZE, d_fsize, 1 * KB, 64 * GB, 0, NULL,                     \
	    "largest file the script may write (ulimit fsize)", sandbox.levels[i].fsize),      \
	KEY(SANDBOX, name ".sigpending", INT, d_sigpending, 16, 1048576, 0, NULL,                 \
	    "most signals queued for the run's uid (ulimit sigpending)",                         \
	    sandbox.levels[i].sigpending),                                                       \
	KEY(SANDBOX, name ".msgqueue", SIZE, d_msgqueue, 0, 1 * GB, 0, NULL,                      \
	    "most bytes in the POSIX message queues of the run's uid (ulimit msgqueue)",         \
	    sandbox.levels[i].msgqueue),                                                         \
	KEY(SANDBOX, name ".memlock", SIZE, d_memlock, 0, 64 * GB, 0, NULL,                       \
	    "most memory the run may lock (ulimit memlock)", sandbox.levels[i].memlock),       \
	KEY(SANDBOX, name ".runtime", STRING, d_runtime, 0, 0, RESTART, check_runtime,          \
	    "OCI runtime: runc, runsc for gVisor, or auto (runsc when dockerd has it "          \
	    "registered, else runc with a warning)", sandbox.levels[i].runtime),              \
	ENUM_KEY_F(SANDBOX, name ".network", "none", network_modes, RESTART,                   \
		 "none, or allowlist (network.allowed_hosts through the filtering proxy)",     \
		 sandbox.levels[i].network),                                                   \
	KEY(SANDBOX, name ".scale", BOOL, "true", 0, 0, 0, NULL,                              \
	    "adapt these limits to the code's size and complexity and to the machine",          \
	    sandbox.levels[i].scale)

const struct config_key config_keys[] = {
	/* agent.yaml */
	KEY(AGENT, "drop_dir", PATH, "/var/lib/mai/drop", 0, 0, RESTART, NULL,
	    "directory watched for .py files", agent.drop_dir),
	KEY(AGENT, "state_dir", PATH, "/var/lib/mai/state", 0, 0, RESTART, NULL,
	    "the agent's own state (audit log by default)", agent.state_dir),
	KEY(AGENT, "mount_point", PATH, "/mnt/maiaudit", 0, 0, RESTART, NULL,
	    "where the read-only audit view is mounted", agent.mount_point),
	KEY(AGENT, "workers", INT, "2", 1, 64, RESTART, NULL,
	    "scripts run at the same time", agent.workers),
	KEY(AGENT, "max_jobs_per_writer", INT, "500", 0, 1000000, 0, NULL,
	    "jobs one writer (uid) may have queued or running; more are refused until some "
	    "end, so that others get their turns (0: no cap)", agent.max_jobs_per_writer),
	KEY(AGENT, "recursive", BOOL, "false", 0, 0, RESTART, NULL,
	    "also watch subdirectories of drop_dir", agent.recursive),
	ENUM_KEY_F(AGENT, "drop_mode", "watch", drop_modes, RESTART,
		   "watch: inotify on drop_dir; mount: the agent serves drop_dir as a FUSE file "
		   "system and sees every close and writer", agent.drop_mode),
	KEY(AGENT, "drop_dir_mode", STRING, "\"\"", 0, 0, CONFIG_F_EMPTY | RESTART, check_dir_mode,
	    "permissions drop_dir gets at start, in octal (\"2770\"); empty: as they are",
	    agent.drop_dir_mode),
	KEY(AGENT, "drop_dir_group", STRING, "\"\"", 0, 0, CONFIG_F_EMPTY | RESTART, check_group,
	    "group drop_dir gets at start (the writers' group); empty: as it is",
	    agent.drop_dir_group),
	KEY(AGENT, "settle_delay", DURATION, "50ms", 0, 60 * SEC, 0, NULL,
	    "quiet time after the last write before a file is taken", agent.settle_delay_ms),
	KEY(AGENT, "max_file_size", SIZE, "1m", 1, 64 * MB, 0, NULL,
	    "larger scripts are rejected", agent.max_file_size),
	ENUM_KEY(AGENT, "log_level", "info", log_levels,
		 "error, warn, info or debug", agent.log_level),
	KEY(AGENT, "docker.socket", PATH, "/var/run/docker.sock", 0, 0, RESTART, NULL,
	    "Unix socket of the Docker Engine API", agent.docker.socket),
	KEY(AGENT, "docker.api_timeout", DURATION, "30s", 1 * SEC, 10 * MIN, RESTART, NULL,
	    "longest wait for one Docker API call", agent.docker.api_timeout_ms),
	KEY(AGENT, "docker.retry_backoff_max", DURATION, "30s", 1 * SEC, 1 * HOUR, 0, NULL,
	    "longest pause between retries while Docker is down", agent.docker.retry_backoff_max_ms),
	KEY(AGENT, "docker.check_interval", DURATION, "5s", 1 * SEC, 1 * HOUR, 0, NULL,
	    "how often the agent checks that Docker answers while no job talks to it (for "
	    "'mai-agent status')", agent.docker.check_interval_ms),

	/* security.yaml */
	KEY(SECURITY, "thresholds.medium", INT, "20", 1, 10000, 0, NULL,
	    "score from which a script is MEDIUM", security.thresholds.medium),
	KEY(SECURITY, "thresholds.high", INT, "50", 1, 10000, 0, NULL,
	    "score from which a script is HIGH (waits for approval)", security.thresholds.high),
	KEY(SECURITY, "thresholds.blocked", INT, "80", 1, 10000, 0, NULL,
	    "score from which a script is BLOCKED", security.thresholds.blocked),
	KEY(SECURITY, "analyzers.bandit.enabled", BOOL, "true", 0, 0, 0, NULL,
	    "add Bandit's findings when Bandit is installed", security.analyzers.bandit.enabled),
	KEY(SECURITY, "analyzers.bandit.path", STRING, "bandit", 0, 0, 0, check_program,
	    "Bandit program (name in PATH or absolute path)", security.analyzers.bandit.path),
	KEY(SECURITY, "analyzers.bandit.timeout", DURATION, "30s", 1 * SEC, 10 * MIN, 0, NULL,
	    "Bandit is stopped after this long", security.analyzers.bandit.timeout_ms),
	KEY(SECURITY, "analyzers.semgrep.enabled", BOOL, "false", 0, 0, 0, NULL,
	    "add Semgrep's findings when Semgrep is installed", security.analyzers.semgrep.enabled),
	KEY(SECURITY, "analyzers.semgrep.path", STRING, "semgrep", 0, 0, 0, check_program,
	    "Semgrep program (name in PATH or absolute path)", security.analyzers.semgrep.path),
	KEY(SECURITY, "analyzers.semgrep.rules", STRING, "\"\"", 0, 0, CONFIG_F_EMPTY, NULL,
	    "Semgrep --config value (a local rules file or directory); empty: the assessor's default",
	    security.analyzers.semgrep.rules),
	KEY(SECURITY, "analyzers.semgrep.timeout", DURATION, "60s", 1 * SEC, 10 * MIN, 0, NULL,
	    "Semgrep is stopped after this long", security.analyzers.semgrep.timeout_ms),
	KEY(SECURITY, "max_findings", INT, "200", 1, 100000, 0, NULL,
	    "findings kept per script; more are counted, not listed", security.max_findings),
	KEY(SECURITY, "approvers.users", STRING_LIST, "[root]", 0, 0, 0, check_account,
	    "users who may approve HIGH and override BLOCKED scripts (names or uids)",
	    security.approvers.users),
	KEY(SECURITY, "approvers.groups", STRING_LIST, "[mai-approvers]", 0, 0, 0, check_account,
	    "groups whose members may approve and override (names or gids; one that does not "
	    "exist counts once it does)", security.approvers.groups),
	KEY(SECURITY, "allow_self_approval", BOOL, "false", 0, 0, 0, NULL,
	    "let an approver approve or override a script they wrote themselves (for "
	    "single-user machines)", security.allow_self_approval),
	KEY(SECURITY, "rules", RAW, "[]", 0, 0, CONFIG_F_LIST, NULL,
	    "extra assessment rules; the format is the assessor's", security.rules),
	KEY(SECURITY, "bandit_checks", RAW, "[]", 0, 0, CONFIG_F_LIST, NULL,
	    "how Bandit's findings of a check count (judged: python2, native or evidence; "
	    "contained:); the format is the assessor's", security.bandit_checks),

	/* sandbox.yaml */
	ENUM_KEY_F(SANDBOX, "engine.mode", "docker", engine_modes, RESTART,
		   "docker: one container per run on a Docker engine (engine.host); swarm: one "
		   "replicated-job service per run on a Swarm whose manager is engine.host",
		   sandbox.engine.mode),
	KEY(SANDBOX, "engine.host", STRING, "\"\"", 0, 0, CONFIG_F_EMPTY | RESTART, check_docker_host,
	    "the engine: unix:///path or tcp://HOST:2376 (with tls); empty: DOCKER_HOST, else "
	    "agent.yaml's docker.socket", sandbox.engine.host),
	KEY(SANDBOX, "engine.tls.ca", PATH, "\"\"", 0, 0, CONFIG_F_EMPTY | RESTART, NULL,
	    "CA certificate (PEM) the engine's certificate must chain to; empty: "
	    "DOCKER_CERT_PATH/ca.pem when DOCKER_TLS_VERIFY is set", sandbox.engine.tls.ca),
	KEY(SANDBOX, "engine.tls.cert", PATH, "\"\"", 0, 0, CONFIG_F_EMPTY | RESTART, NULL,
	    "the agent's client certificate (PEM); empty: DOCKER_CERT_PATH/cert.pem",
	    sandbox.engine.tls.cert),
	KEY(SANDBOX, "engine.tls.key", PATH, "\"\"", 0, 0, CONFIG_F_EMPTY | RESTART, NULL,
	    "the client certificate's private key (PEM); empty: DOCKER_CERT_PATH/key.pem",
	    sandbox.engine.tls.key),
	KEY(SANDBOX, "engine.node_label", STRING, "mai.trust", 0, 0, RESTART, check_label_key,
	    "swarm: the node label whose value names the trust level a node serves (trusted, "
	    "standard, untrusted); runs are constrained to matching nodes", sandbox.engine.node_label),
	KEY(SANDBOX, "engine.probe_timeout", DURATION, "60s", 1 * SEC, 10 * MIN, RESTART, NULL,
	    "swarm: wall-clock limit of the probe job that proves a node's settings",
	    sandbox.engine.probe_timeout_ms),
	KEY(SANDBOX, "image", STRING, "mai-sandbox:latest", 0, 0, RESTART, check_image,
	    "image with python3 that runs the scripts", sandbox.image),
	KEY(SANDBOX, "uid_range", STRING, "1879048192-1879113727", 0, 0, RESTART, check_uid_range,
	    "uids reserved for the containers, one per container in flight (gid the same); "
	    "no host account, process or file may use them", sandbox.uid_range),
	KEY(SANDBOX, "pool_size", INT, "auto", 0, 16, RESTART | CONFIG_F_AUTO, NULL,
	    "containers per trust level created ahead of time (each still used once); auto: "
	    "sized from the machine, 0: none", sandbox.pool_size),
	KEY(SANDBOX, "self_test", BOOL, "true", 0, 0, RESTART, NULL,
	    "run a probe container at start to check the hardening", sandbox.self_test),
	KEY(SANDBOX, "stdout_max", SIZE, "1m", 1 * KB, 64 * MB, 0, NULL,
	    "stdout kept per run; the rest is cut and marked truncated", sandbox.stdout_max),
	KEY(SANDBOX, "stderr_max", SIZE, "1m", 1 * KB, 64 * MB, 0, NULL,
	    "stderr kept per run", sandbox.stderr_max),
	KEY(SANDBOX, "network.allowed_hosts", STRING_LIST, "[pypi.org, files.pythonhosted.org]",
	    0, 0, RESTART, check_host, "hosts reachable in allowlist mode", sandbox.network.allowed_hosts),
	KEY(SANDBOX, "network.index_url", STRING, "https://pypi.org/simple", 0, 0, RESTART, check_url,
	    "package index used in allowlist mode", sandbox.network.index_url),
	KEY(SANDBOX, "network.proxy_port", INT, "3128", 1, 65535, RESTART, NULL,
	    "port of the filtering proxy on the sandbox network's gateway address",
	    sandbox.network.proxy_port),
	KEY(SANDBOX, "network.image", STRING, "mai-sandbox-pip:latest", 0, 0, RESTART, check_image,
	    "image with python3-pip for scripts with PEP 723 dependencies",
	    sandbox.network.image),
	KEY(SANDBOX, "network.proxy_image", STRING, "mai-sandbox-proxy:latest", 0, 0, RESTART,
	    check_image, "image with tinyproxy for each run's filtering proxy on Swarm",
	    sandbox.network.proxy_image),
	KEY(SANDBOX, "network.install_timeout", DURATION, "120s", 1 * SEC, 1 * HOUR, RESTART, NULL,
	    "wall-clock limit of installing one script's dependencies",
	    sandbox.network.install_timeout_ms),
	KEY(SANDBOX, "network.install_size", SIZE, "256m", 1 * MB, 64 * GB, RESTART, NULL,
	    "size of the tmpfs one script's dependencies are installed into",
	    sandbox.network.install_size),
	TRUST_KEYS("trusted", TRUST_TRUSTED, "512m", "1.0", "128", "30s", "64m", "256", "64m", "1024", "800k", "8m",
		   "runc"),
	TRUST_KEYS("standard", TRUST_STANDARD, "256m", "1.0", "64", "10s", "32m", "128", "16m", "512", "400k", "4m",
		   "runc"),
	TRUST_KEYS("untrusted", TRUST_UNTRUSTED, "128m", "0.5", "32", "5s", "16m", "64", "4m", "256", "200k", "1m",
		   "auto"),

	/* audit.yaml */
	KEY(AUDIT, "log_dir", PATH, "audit", 0, 0, CONFIG_F_RELATIVE | RESTART, NULL,
	    "audit log segments; relative to agent.state_dir", audit.log_dir),
	KEY(AUDIT, "signing_key", PATH, "/var/lib/mai/keys/audit.key", 0, 0, RESTART, NULL,
	    "Ed25519 private key; must be outside log_dir", audit.signing_key),
	KEY(AUDIT, "public_key", PATH, "\"\"", 0, 0, CONFIG_F_RELATIVE | CONFIG_F_EMPTY | RESTART, NULL,
	    "published public key; empty: <log_dir>/audit.pub", audit.public_key),
	KEY(AUDIT, "origin", STRING, "mai-agent/audit", 0, 0, RESTART, check_origin,
	    "first line of every signed checkpoint", audit.origin),
	KEY(AUDIT, "fsync", BOOL, "true", 0, 0, RESTART, NULL,
	    "make every append durable before its sidecar is written", audit.fsync),
	KEY(AUDIT, "group_commit_delay", DURATION, "0", 0, 1 * SEC, RESTART, NULL,
	    "extra wait for company before an fsync (0: none; appends that arrive "
	    "during an fsync share the next one anyway)", audit.group_commit_delay_ms),
	KEY(AUDIT, "checkpoint_interval", DURATION, "10s", 1 * SEC, 1 * DAY, RESTART, NULL,
	    "sign a checkpoint at most this long after an append", audit.checkpoint_interval_ms),
	KEY(AUDIT, "rotate_size", SIZE, "64m", 1 * MB, 64 * GB, RESTART, NULL,
	    "start a new segment past this size", audit.rotate_size),
	KEY(AUDIT, "rotate_age", DURATION, "24h", 0, 365 * DAY, RESTART, NULL,
	    "start a new segment past this age; 0: never by age", audit.rotate_age_ms),
	KEY(AUDIT, "retention_age", DURATION, "0", 0, 3650 * DAY, RESTART, NULL,
	    "drop segments older than this (behind a signed checkpoint); 0: keep all",
	    audit.retention_age_ms),
	KEY(AUDIT, "diff_max", SIZE, "64k", 0, 16 * MB, 0, NULL,
	    "largest diff against a script's previous version kept in the log", audit.diff_max),
};

const size_t config_keys_count = ARRAY_SIZE(config_keys);

const char *config_file_name(enum config_file file)
{
	switch (file) {
	case CONFIG_FILE_AGENT:
		return "agent.yaml";
	case CONFIG_FILE_SECURITY:
		return "security.yaml";
	case CONFIG_FILE_SANDBOX:
		return "sandbox.yaml";
	case CONFIG_FILE_AUDIT:
		return "audit.yaml";
	case CONFIG_FILE_COUNT:
		break;
	}
	return "?";
}

const char *config_type_to_string(enum config_type type)
{
	switch (type) {
	case CONFIG_STRING:
		return "string";
	case CONFIG_PATH:
		return "path";
	case CONFIG_BOOL:
		return "bool";
	case CONFIG_INT:
		return "int";
	case CONFIG_SIZE:
		return "size";
	case CONFIG_DURATION:
		return "duration";
	case CONFIG_ENUM:
		return "enum";
	case CONFIG_CPUS:
		return "cpus";
	case CONFIG_STRING_LIST:
		return "list of strings";
	case CONFIG_RAW:
		return "list";
	}
	return "?";
}

