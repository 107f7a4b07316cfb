/* mai-agent run: the daemon, wired to what this build has. */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assess.h"
#include "assess_external.h"
#include "audit.h"
#include "audit_event.h"
#include "bandit_worker.h"
#include "cmd.h"
#include "config.h"
#include "daemon.h"
#include "docker_health.h"
#include "fileio.h"
#include "log.h"
#include "options.h"
#include "pep723.h"
#include "sandbox.h"
#include "viewproc.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent run [--config-dir DIR] [--log-file FILE] [--mount[=DIR]]\n"
		"\n"
		"Watches agent.drop_dir and answers every .py file dropped there with a\n"
		"foo.result.json next to it. Runs until SIGTERM or SIGINT; SIGHUP reloads\n"
		"the configuration (an invalid one is refused and the running one kept).\n"
		"\n"
		"  -c, --config-dir DIR  configuration directory (default $%s, else %s)\n"
		"  -l, --log-file FILE   append the log to FILE instead of stderr\n"
		"  -m, --mount[=DIR]     also mount the read-only audit view (maiaudit) on\n"
		"                        DIR, by default agent.mount_point; it is unmounted\n"
		"                        when the agent stops\n"
		"\n"
		"Exit status: 0 stopped cleanly; 2 bad arguments; 3 invalid configuration;\n"
		"4 Docker or the sandbox not usable; 1 the agent could not start otherwise.\n",
		CONFIG_DIR_ENV, CONFIG_DEFAULT_DIR);
}

/* The assessor's rules and the analyzers' settings (security.yaml), shared
 * by the jobs that use them: a reload swaps in a new set for the jobs that
 * start afterwards, and the old set is freed when its last job is done with
 * it. The analyzers' settings are a copy: the configuration they were read
 * from is freed by the next reload. */
struct rules_ref {
	struct assess_rules *rules;
	struct config_analyzers analyzers;
	unsigned refs; /* under stage_ctx.lock */
};

struct stage_ctx {
	struct rules_ref *rules; /* the current set; holds one reference */
	struct audit_log *log;
	/* NULL while Docker has not answered yet: the first job that needs it
	 * (each retry of it, with the daemon's backoff) tries again. */
	struct sandbox *sb;
	struct sandbox_options so; /* runtime "auto" resolved once Docker answers */
	char *runtime_warning; /* "auto" fell back to runc; NULL: it did not */
	const char *socket; /* borrowed from the config, for messages */
	struct docker_health *health; /* the outcomes of the calls below go there */
	pthread_mutex_t lock; /* guards sb, so's limits, rules and stopping */
	bool stopping;
	/* Bandit for every job, imported once (it has its own lock) */
	struct bandit_worker *bandit;
	/* each level's network at start, for the assessor (a restart changes it) */
	struct assess_sandbox assess_sandbox;
};

static struct rules_ref *rules_get(struct stage_ctx *sc)
{
	pthread_mutex_lock(&sc->lock);
	struct rules_ref *r = sc->rules;
	r->refs++;
	pthread_mutex_unlock(&sc->lock);
	return r;
}

static void rules_put(struct stage_ctx *sc, struct rules_ref *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&sc->lock);
	bool last = --r->refs == 0;
	pthread_mutex_unlock(&sc->lock);
	if (last) {
		assess_rules_free(r->rules);
		config_analyzers_clear(&r->analyzers);
		free(r);
	}
}

/* Makes rules (taken) and a copy of analyzers the current set; the previous
 * one goes when its jobs end. */
static void rules_swap(struct stage_ctx *sc, struct assess_rules *rules,
		       const struct config_analyzers *analyzers)
{
	struct rules_ref *r = xcalloc(1, sizeof(*r));
	r->rules = rules;
	config_analyzers_copy(&r->analyzers, analyzers);
	r->refs = 1;
	pthread_mutex_lock(&sc->lock);
	struct rules_ref *old = sc->rules;
	sc->rules = r;
	pthread_mutex_unlock(&sc->lock);
	rules_put(sc, old);
}

/* The detail of an "error" result while Docker is down; why says what to
 * do (Docker's client names the setting), the result adds that the agent
 * retries. */
static char *docker_down_message(const struct stage_ctx *sc, const char *why)
{
	return xasprintf("Docker is not usable at %s: %s", sc->socket, why);
}

/* Resolves the runtime "auto" (options.h) before the sandbox is made; the
 * fallback to runc is said once, here. Under sc->lock or before the
 * workers start. 0 or -EHOSTDOWN with *err. */
static int resolve_runtimes(struct stage_ctx *sc, char **err)
{
	char *warning = NULL;
	int r = sandbox_options_resolve_auto(&sc->so, &warning, err);
	if (warning) {
		log_warnx("%s", warning);
		free(sc->runtime_warning);
		sc->runtime_warning = warning;
	}
	if (r == 0)
		for (int t = 0; t < TRUST_COUNT; t++)
			log_info("trust level %s runs with %s", trust_to_string((enum trust)t),
				 sc->so.trust[t].runtime ? sc->so.trust[t].runtime : "runc");
	return r;
}

static void stage_runtimes(void *ctx, const char *names[TRUST_COUNT], const char **warning)
{
	struct stage_ctx *sc = ctx;
	pthread_mutex_lock(&sc->lock);
	for (int t = 0; t < TRUST_COUNT; t++)
		names[t] = sc->so.trust[t].runtime ? sc->so.trust[t].runtime : "runc";
	*warning = sc->runtime_warning;
	pthread_mutex_unlock(&sc->lock);
}

/* The sandbox, set up now if Docker did not answer before. NULL with
 * *detail (caller frees) and *rc: -ECANCELED when the agent is stopping,
 * else -EHOSTDOWN (Docker still does not answer). */
static struct sandbox *stage_sandbox(struct stage_ctx *sc, char **detail, int *rc)
{
	_cleanup_free_ char *e = NULL;
	struct sandbox *sb;
	bool stopping;
	int r = 0;

	pthread_mutex_lock(&sc->lock);
	if (!sc->sb && !sc->stopping) {
		r = resolve_runtimes(sc, &e);
		if (r == 0)
			r = sandbox_new(&sc->so, &sc->sb, &e);
		if (r == 0)
			log_info("Docker answers at %s: sandbox ready", sc->socket);
		docker_health_note(sc->health, r != -EHOSTDOWN, e);
	}
	stopping = sc->stopping;
	sb = stopping ? NULL : sc->sb;
	pthread_mutex_unlock(&sc->lock);
	if (stopping) {
		*detail = xstrdup("the agent stopped (SIGTERM or SIGINT) before the script could "
				  "run; it runs when the agent next starts");
		*rc = -ECANCELED;
	} else if (!sb) {
		*detail = docker_down_message(sc, e ? e : "no detail");
		*rc = -EHOSTDOWN;
	}
	return sb;
}

static bool stage_docker_health(void *ctx, bool *reachable, struct timespec *checked, char **why)
{
	return docker_health_get(((struct stage_ctx *)ctx)->health, reachable, checked, why);
}

/* {name, host, proxy, nodes}: the engine, where the allowlist's proxy runs
 * (when a level has one), and what the probe of each of its nodes proved
 * (engines of more than one node). */
static json_t *engine_json(struct sandbox *sb)
{
	const struct sandbox_engine_info *e = sandbox_engine(sb);
	json_t *o = json_pack("{s:s, s:s}", "name", e->name, "host", e->endpoint);
	json_t *nodes = sandbox_nodes(sb);

	if (e->network && e->proxy)
		json_object_set_new(o, "proxy", json_string(e->proxy));
	if (nodes)
		json_object_set_new(o, "nodes", nodes);
	return o;
}

static json_t *stage_engine(void *ctx)
{
	struct stage_ctx *sc = ctx;
	json_t *o = NULL;

	if (pthread_mutex_trylock(&sc->lock) != 0)
		return NULL;
	if (sc->sb)
		o = engine_json(sc->sb);
	pthread_mutex_unlock(&sc->lock);
	return o;
}

/* A round of node probes after start (a node that joined, came back or was
 * relabelled): recorded as at start. */
static void engine_probed(void *arg, const char *name, const char *host, json_t *nodes)
{
	struct stage_ctx *sc = arg;
	char *err = NULL;

	if (!sc->log)
		return;
	json_t *f = json_pack("{s:s, s:s, s:O}", "name", name, "host", host, "nodes", nodes);
	if (audit_event_append(sc->log, AUDIT_EVENT_ENGINE_NODES, f, NULL, &err) < 0) {
		log_warnx("cannot record the engine's node probes in the audit log: %s",
			  err ? err : "the log refused it");
		free(err);
	}
	json_decref(f);
}

static unsigned stage_pool_size(void *ctx)
{
	struct stage_ctx *sc = ctx;
	unsigned n = 0;

	/* Under the lock that guards sc->sb, but never waiting for it: the
	 * loop's thread asks, and a worker holds it while it sets the sandbox
	 * up (seconds, with the self-test); there is no pool yet then. */
	if (pthread_mutex_trylock(&sc->lock) != 0)
		return 0;
	if (sc->sb)
		n = sandbox_pool_size(sc->sb);
	pthread_mutex_unlock(&sc->lock);
	return n;
}

static int stage_audit(void *ctx, enum audit_event e, json_t *fields, uint64_t *seq)
{
	struct audit_position pos;
	_cleanup_free_ char *err = NULL;
	int r = audit_event_append(((struct stage_ctx *)ctx)->log, e, fields, &pos, &err);
	if (err) /* a record without a field its type needs: a bug, named here */
		log_errorx("audit: %s", err);
	if (r == 0)
		*seq = pos.seq;
	return r;
}

static int stage_audit_queue(void *ctx, enum audit_event e, json_t *fields, uint64_t *seq,
			     uint64_t *epoch)
{
	struct audit_position pos;
	_cleanup_free_ char *err = NULL;
	int r = audit_event_queue(((struct stage_ctx *)ctx)->log, e, fields, &pos, &err);
	if (err) /* a record without a field its type needs: a bug, named here */
		log_errorx("audit: %s", err);
	if (r == 0) {
		*seq = pos.seq;
		*epoch = pos.epoch;
	}
	return r;
}

static int stage_audit_sync(void *ctx, uint64_t seq, uint64_t epoch)
{
	return audit_sync(((struct stage_ctx *)ctx)->log, seq, epoch);
}

static enum audit_health stage_audit_health(void *ctx, char **why)
{
	return audit_health(((struct stage_ctx *)ctx)->log, why);
}

static int stage_audit_sidecar(void *ctx, const uint64_t *seqs, size_t n, char **text,
			       size_t *len, struct audit_sidecar_info *pos)
{
	return audit_sidecar_render(((struct stage_ctx *)ctx)->log, seqs, n, text, len, pos);
}

static int open_audit(const struct mai_config *cfg, struct audit_log **log)
{
	const struct config_audit *a = &cfg->audit;
	struct audit_options ao = {
		.log_dir = a->log_dir,
		.signing_key = a->signing_key,
		.public_key = a->public_key && *a->public_key ? a->public_key : NULL,
		.origin = a->origin,
		.fsync = a->fsync,
		.group_commit_delay_us = (unsigned)(a->group_commit_delay_ms * 1000),
		.checkpoint_interval_s = (unsigned)(a->checkpoint_interval_ms / 1000),
		.rotate_size = a->rotate_size,
		.rotate_age_s = (unsigned)(a->rotate_age_ms / 1000),
		.retention_age_s = (unsigned)(a->retention_age_ms / 1000),
		.diff_max = a->diff_max,
	};
	_cleanup_free_ char *err = NULL;
	/* The message says what is wrong and what to do (the key's own
	 * messages name 'mai-agent keygen'). */
	if (audit_open(&ao, log, &err) < 0) {
		log_errorx("%s", err);
		return -1;
	}
	return 0;
}

static void reject(struct daemon_assessment *out, const char *reason, char *detail)
{
	out->rejected = true;
	out->reject_reason = reason;
	free(out->detail);
	out->detail = detail;
}

/* The PEP 723 block of base cannot be read yet (why: what is missing and
 * what to do): an error answer that says so, retried like a run that
 * Docker could not start. Returns rc (-errno). */
static int metadata_waits(struct daemon_assessment *out, const char *base, const char *why, int rc)
{
	log_warnx("%s: its PEP 723 block waits: %s", base, why);
	bool stopping = rc == -ECANCELED;
	out->fail_reason = stopping ? "agent_stopped" : "sandbox_unavailable";
	free(out->detail);
	out->detail = xasprintf("the PEP 723 block of %s cannot be read yet: %s%s", base, why,
				stopping ? "" : "; the agent tries again");
	return rc;
}

/* PEP 723 inline metadata: the block located in C, its TOML parsed by
 * tomllib in a container, its dependencies shown in the assessment. A
 * script with dependencies at a level without network is rejected, saying
 * which setting allows it. 0, or -errno when the parse must be retried. */
static int assess_inline_metadata(struct stage_ctx *sc, const char *name,
				  const struct intake_snapshot *snap, struct daemon_assessment *out)
{
	_cleanup_free_ char *toml = NULL, *err = NULL;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	json_t *table = NULL, *meta, *list;
	char **deps = NULL;
	size_t line = 0, n = 0;
	int r = pep723_locate((const char *)snap->data, snap->len, &toml, &line, &err);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		reject(out, "bad_metadata", xasprintf("%s: %s", base, err));
		return 0;
	}
	int src = 0;
	struct sandbox *sb = stage_sandbox(sc, &err, &src);
	if (!sb)
		return metadata_waits(out, base, err, src);
	r = sandbox_parse_toml(sb, toml, strlen(toml), &table, &err);
	if (r == -EINVAL) {
		reject(out, "bad_metadata", xasprintf("%s, line %zu: %s", base, line, err));
		return 0;
	}
	/* -ENOENT: the engine lacks the image that reads it; built, the retry
	 * reads it. */
	if (r < 0)
		return metadata_waits(out, base, err, r);
	if (pep723_dependencies(table, &deps, &n, &err) < 0) {
		json_decref(table);
		reject(out, "bad_metadata", xasprintf("%s, line %zu: %s", base, line, err));
		return 0;
	}
	list = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, json_string(deps[i]));
	meta = json_pack("{s:I, s:o}", "line", (json_int_t)line, "dependencies", list);
	if (json_is_string(json_object_get(table, "requires-python")))
		json_object_set(meta, "requires_python", json_object_get(table, "requires-python"));
	json_object_set_new(out->json, "inline_metadata", meta);
	json_decref(table);
	enum trust t = level_trust(out->level);
	if (n > 0 && !out->rejected && !sandbox_trust_has_network(sb, t)) {
		const char *level = trust_to_string(t);
		reject(out, "network_required",
		       xasprintf("%s declares %zu PEP 723 dependencies (%s%s) but its trust level "
				 "%s has network: none, so they cannot be installed; to allow it, "
				 "set network: allowlist under %s: in config/sandbox.yaml and list "
				 "the package index's host in network.allowed_hosts there",
				 base, n, deps[0], n > 1 ? ", ..." : "", level, level));
	}
	pep723_strv_free(deps);
	return 0;
}

/* The real assessor as the daemon's assess stage. */
static int stage_assess(void *ctx, const char *name, const struct intake_snapshot *snap,
			struct daemon_assessment *out)
{
	struct stage_ctx *sc = ctx;
	struct rules_ref *rules = rules_get(sc);
	struct assess_result res = { 0 };

	int r = assess_with_analyzers(rules->rules, &rules->analyzers, sc->bandit, name,
				      snap->data, snap->len, &res);
	rules_put(sc, rules);
	out->level = (enum level)res.level;
	out->rejected = r == -EINVAL && res.rejection;
	if (out->rejected)
		out->detail = xasprintf("the file is not valid Python source text (%s, at byte "
					"%zu): save it as UTF-8 text without NUL bytes",
					res.rejection, res.rejection_offset);
	out->json = assess_result_to_json(&res);
	out->bytes = res.metrics.bytes;
	out->lines = res.metrics.lines;
	out->loops = res.metrics.loops;
	out->imports = res.metrics.imports;
	out->max_nesting = res.metrics.max_nesting;
	assess_result_clear(&res);
	if (!out->rejected && (r = assess_inline_metadata(ctx, name, snap, out)) < 0) {
		json_decref(out->json);
		out->json = NULL;
		return r;
	}
	return 0;
}

static const enum result_verdict verdict_map[] = {
	[SANDBOX_VERDICT_EXITED] = RESULT_VERDICT_EXITED,
	[SANDBOX_VERDICT_TIMEOUT] = RESULT_VERDICT_TIMEOUT,
	[SANDBOX_VERDICT_OOM_KILLED] = RESULT_VERDICT_OOM_KILLED,
	[SANDBOX_VERDICT_OUTPUT_LIMIT] = RESULT_VERDICT_OUTPUT_LIMIT,
	[SANDBOX_VERDICT_PIDS_LIMIT] = RESULT_VERDICT_PIDS_LIMIT,
	[SANDBOX_VERDICT_SANDBOX_ERROR] = RESULT_VERDICT_SANDBOX_ERROR,
};

/* SIGTERM/SIGINT: running containers are killed and removed. */
static void stage_cancel_all(void *ctx)
{
	struct stage_ctx *sc = ctx;

	pthread_mutex_lock(&sc->lock);
	sc->stopping = true;
	if (sc->sb)
		sandbox_cancel_all(sc->sb);
	pthread_mutex_unlock(&sc->lock);
}

/* The sandbox whose background work this worker's job holds off until its
 * answer is written (stage_answered). */
static _Thread_local struct sandbox *held_quiet;

static void stage_answered(void *ctx)
{
	struct stage_ctx *sc = ctx;
	if (held_quiet)
		sandbox_release_quiet(held_quiet);
	held_quiet = NULL;
	/* What was only queued before this answer is written now, off the
	 * drop's path; the checkpoint its sidecar cites goes beside the log
	 * (the checkpoint thread: this worker takes its next job meanwhile). */
	if (audit_flush(sc->log) < 0)
		log_warnx("audit: a record queued before this answer could not be written; see above");
	audit_checkpoint_write_soon(sc->log);
}

/* The real sandbox as the daemon's execute stage. */
static int stage_execute(void *ctx, const char *name, const struct intake_snapshot *snap,
			 const struct daemon_assessment *a, enum trust trust, const atomic_bool *halt,
			 struct daemon_execution *out, char **detail)
{
	struct stage_ctx *sc = ctx;
	int rc = 0;
	struct sandbox *sb = stage_sandbox(sc, detail, &rc);
	if (!sb)
		return rc;
	const char *slash = strrchr(name, '/');
	struct sandbox_job job = {
		.job_id = snap->sha256,
		.file_name = slash ? slash + 1 : name,
		.code = snap->data,
		.len = snap->len,
		.trust = (enum trust)trust,
		.metrics = { a->bytes, a->lines, a->loops, a->imports, a->max_nesting },
		.cancel = halt,
	};
	struct sandbox_result res;
	json_t *deps = json_object_get(json_object_get(a->json, "inline_metadata"), "dependencies");
	if (!held_quiet) {
		sandbox_hold_quiet(sb);
		held_quiet = sb;
	}
	const char **dv = xcalloc(json_array_size(deps) + 1, sizeof(char *));
	for (size_t i = 0; i < json_array_size(deps); i++)
		dv[i] = json_string_value(json_array_get(deps, i));
	job.dependencies = dv;
	job.n_dependencies = json_array_size(deps);
	int r = sandbox_run(sb, &job, &res);

	free(dv);
	if (r < 0) {
		/* Docker could not run it: the daemon answers "error" and retries.
		 * A run broken off because dockerd went away says so (the
		 * sandbox's own message names whichever call failed first). */
		_cleanup_free_ char *e = NULL;
		const char *m = res.message ? res.message : "the sandbox could not start the run";
		if (r == -ECANCELED) {
			*detail = xstrdup(m);
		} else if (sandbox_ping(sb, &e) < 0) {
			*detail = docker_down_message(sc, e);
			docker_health_note(sc->health, false, e);
		} else {
			*detail = xstrdup(m);
			docker_health_note(sc->health, true, NULL);
		}
		sandbox_result_clear(&res);
		return r;
	}
	docker_health_note(sc->health, true, NULL);
	out->verdict = (size_t)res.verdict < ARRAY_SIZE(verdict_map) ? verdict_map[res.verdict]
								    : RESULT_VERDICT_SANDBOX_ERROR;
	out->exit_code = res.exit_code;
	out->signal = res.signal;
	out->detail = res.message ? xstrdup(res.message) : NULL;
	if (res.dependencies && !json_is_true(json_object_get(res.dependencies, "ok")))
		out->reason = "dependencies_failed";
	out->json = sandbox_result_to_json(&res);
	sandbox_result_clear(&res);
	return 0;
}

/* The rules and thresholds of dir/security.yaml (the built-in ones when it
 * is missing) and cfg's findings cap. 0, or -EINVAL with *err (caller
 * frees). */
static int load_rules(const char *dir, const struct mai_config *cfg, struct assess_rules **rules,
		      char **err)
{
	_cleanup_free_ char *path = xasprintf("%s/security.yaml", dir);
	_cleanup_free_ char *e = NULL;
	struct stat st;
	bool have = stat(path, &st) == 0;

	if (assess_rules_load(have ? path : NULL, rules, &e) < 0) {
		*err = xasprintf("%s; fix the file or check it with 'mai-agent config check'", e);
		return -EINVAL;
	}
	assess_rules_set_max_findings(*rules, (size_t)cfg->security.max_findings);
	return 0;
}

/* The sandbox the assessor judges findings against: each level's network
 * as the agent started with it (a reload does not change it, see
 * stage_reload). */
static void rules_set_sandbox(struct stage_ctx *sc, struct assess_rules *rules)
{
	assess_rules_set_sandbox(rules, &sc->assess_sandbox);
}

/* SIGHUP: new rules, thresholds and analyzers' settings for the assessor,
 * new limits for the sandbox (or for the one made when Docker answers);
 * jobs running keep theirs. Invalid rules refuse the whole reload. */
static int stage_reload(void *ctx, const struct mai_config *cfg, const char *dir, char **err)
{
	struct stage_ctx *sc = ctx;
	struct assess_rules *rules = NULL;
	struct sandbox_options so;

	if (load_rules(dir, cfg, &rules, err) < 0)
		return -EINVAL;
	rules_set_sandbox(sc, rules);
	rules_swap(sc, rules, &cfg->security.analyzers);
	sandbox_options_from_config(cfg, NULL, &so);
	pthread_mutex_lock(&sc->lock);
	for (int t = 0; t < TRUST_COUNT; t++) {
		sc->so.trust[t].base = so.trust[t].base;
		sc->so.trust[t].no_scale = so.trust[t].no_scale;
	}
	struct sandbox *sb = sc->sb;
	pthread_mutex_unlock(&sc->lock);
	/* Outside the lock: emptying the warm pool talks to Docker. sb lives
	 * until the agent ends. */
	if (sb)
		sandbox_set_limits(sb, &so);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "log-file", required_argument, NULL, 'l' },
		{ "mount", optional_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL, *log_file = NULL, *mount_arg = NULL;
	bool mount = false;
	pid_t view_pid = -1;
	_cleanup_free_ char *dir = NULL, *err = NULL, *aerr = NULL;
	struct mai_config *cfg = NULL;
	struct assess_rules *rules = NULL;
	struct daemon *d = NULL;
	struct stage_ctx sc = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct audit_log *log = NULL;
	int c, rc = MAI_EXIT_FAILURE;

	while ((c = getopt_long(argc, argv, "c:l:m::h", options, NULL)) != -1) {
		switch (c) {
		case 'c': dir_arg = optarg; break;
		case 'l': log_file = optarg; break;
		case 'm': mount = true; mount_arg = optarg; break;
		case 'h': run_usage(stdout); return MAI_EXIT_OK;
		default: run_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_errorx("run: unexpected argument '%s'; see 'mai-agent run --help'", argv[optind]);
		return MAI_EXIT_USAGE;
	}
	if (log_file) {
		/* Opened before stderr is replaced: freopen() would close stderr
		 * first, and the message saying why it failed would go nowhere. */
		int fd = open(log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
		if (fd < 0) {
			log_error("run: cannot open the log file %s (--log-file)", log_file);
			return MAI_EXIT_USAGE;
		}
		dup2(fd, STDERR_FILENO);
		close(fd);
		setvbuf(stderr, NULL, _IOLBF, 0);
		log_set_timestamps(true);
	}
	if (config_dir_resolve(dir_arg, &dir, &err) < 0 || config_load(dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	log_set_level((enum log_level)cfg->agent.log_level);
	config_note_missing(dir);
	if (load_rules(dir, cfg, &rules, &err) < 0) {
		log_errorx("%s", err);
		config_free(cfg);
		return MAI_EXIT_CONFIG;
	}
	int r = fileio_mkdir_p(cfg->agent.drop_dir, 0755);
	/* Not connected: the mount of an agent that was killed, which mount
	 * mode clears before it mounts again (the directory is underneath). */
	if (r == -ENOTCONN && cfg->agent.drop_mode == CONFIG_DROP_MOUNT)
		r = 0;
	if (r < 0) {
		log_errorx("cannot create the drop directory %s: %s (agent.drop_dir in agent.yaml)",
			   cfg->agent.drop_dir, strerror(-r));
		goto out;
	}
	if (daemon_check_drop_fs(cfg, &err) < 0) {
		log_errorx("%s", err);
		goto out;
	}

	/* Block the signals the loop handles before the sandbox and the audit
	 * log start their threads: a thread without the mask would take
	 * SIGHUP with its default action and end the agent. */
	sigset_t set;
	daemon_block_signals(&set);

	/* The audit log first: a log the agent cannot vouch for (changed
	 * behind it, a torn checkpoint) refuses the start at once, before
	 * seconds of Docker calls and the sandbox's self-test. */
	if (open_audit(cfg, &log) < 0)
		goto out;

	/* One agent per state directory: its path names this instance's
	 * containers, so a restarted agent removes what a killed one left. */
	sandbox_options_from_config(cfg, cfg->agent.state_dir, &sc.so);
	sc.so.engine.probed = engine_probed;
	sc.so.engine.probed_arg = &sc;
	sc.socket = sc.so.engine.host ? sc.so.engine.host : cfg->agent.docker.socket;
	struct docker_health_options ho = {
		.socket_path = cfg->agent.docker.socket,
		.host = sc.so.engine.host,
		.tls = { sc.so.engine.tls_ca, sc.so.engine.tls_cert, sc.so.engine.tls_key },
		.interval_ms = (unsigned)cfg->agent.docker.check_interval_ms,
	};
	if (docker_health_start(&ho, &sc.health, &err) < 0) {
		log_errorx("%s", err);
		goto out;
	}
	r = resolve_runtimes(&sc, &err);
	if (r == 0)
		r = sandbox_new(&sc.so, &sc.sb, &err);
	docker_health_note(sc.health, r != -EHOSTDOWN, r < 0 ? err : NULL);
	if (r == -EHOSTDOWN) {
		/* Docker down is a state the agent lives through: drops are
		 * answered with "error" and run once it answers. */
		log_warnx("%s; the agent starts anyway and retries with backoff", err);
	} else if (r < 0) {
		log_errorx("%s", err);
		rc = MAI_EXIT_DOCKER;
		goto out;
	} else {
		log_info("sandbox ready: image %s, %zu leftover container(s) removed",
			 cfg->sandbox.image, sandbox_leftovers_removed(sc.sb));
	}

	assess_sandbox_from_config(cfg, &sc.assess_sandbox);
	rules_set_sandbox(&sc, rules);
	rules_swap(&sc, rules, &cfg->security.analyzers);
	rules = NULL;
	sc.log = log;
	sc.bandit = bandit_worker_new();
	/* Bandit's import (seconds on a loaded machine) while the agent waits
	 * for its first drop, not inside that drop's assessment. */
	if (cfg->security.analyzers.bandit.enabled)
		bandit_worker_prestart(sc.bandit, cfg->security.analyzers.bandit.path);
	struct daemon_stages stages = { .assess = stage_assess, .execute = stage_execute,
					.answered = stage_answered,
					.audit = stage_audit,
					.audit_queue = stage_audit_queue,
					.audit_sync = stage_audit_sync,
					.audit_sidecar = stage_audit_sidecar,
					.audit_health = stage_audit_health,
					.cancel_all = stage_cancel_all,
					.docker_health = stage_docker_health,
					.pool_size = stage_pool_size,
					.runtimes = stage_runtimes,
					.engine = stage_engine,
					.reload = stage_reload, .ctx = &sc };
	json_t *f = json_pack("{s:s, s:s, s:s}", "version", MAI_VERSION, "config_sha256",
			      cfg->sha256, "drop_dir", cfg->agent.drop_dir);
	json_t *cf = json_pack("{s:s, s:s}", "config_sha256", cfg->sha256, "config_dir", dir);
	r = audit_event_append(log, AUDIT_EVENT_AGENT_START, f, NULL, &aerr);
	if (r == 0)
		r = audit_event_append(log, AUDIT_EVENT_CONFIG_LOADED, cf, NULL, &aerr);
	/* What each node of the engine proved before any run goes there. */
	json_t *nodes = sc.sb ? sandbox_nodes(sc.sb) : NULL;
	if (r == 0 && nodes) {
		json_t *ef = engine_json(sc.sb);
		r = audit_event_append(log, AUDIT_EVENT_ENGINE_NODES, ef, NULL, &aerr);
		json_decref(ef);
	}
	json_decref(nodes);
	json_decref(f);
	json_decref(cf);
	if (r < 0) {
		log_errorx("cannot record agent_start in the audit log %s: %s; nothing may run "
			   "without its records", cfg->audit.log_dir, aerr ? aerr : strerror(-r));
		goto out;
	}
	struct daemon_options o = { .cfg = cfg, .config_dir = dir, .stages = &stages,
				    .handle_signals = true };
	if (daemon_new(&o, &d, &err) < 0) {
		log_errorx("%s", err);
		goto out;
	}
	log_info("configuration %s (sha256 %.12s)", dir, cfg->sha256);
	if (mount) {
		const char *mp = mount_arg ? mount_arg : cfg->agent.mount_point;
		free(err);
		err = NULL;
		r = fileio_mkdir_p(mp, 0755);
		if (r < 0)
			err = xstrdup(strerror(-r));
		if (r < 0 || viewproc_start(mp, dir, log_file, &view_pid, &err) < 0) {
			log_errorx("cannot mount the audit view on %s: %s (agent.mount_point in "
				   "agent.yaml, or --mount=DIR)", mp, err);
			goto out;
		}
	}
	rc = daemon_run(d) < 0 ? MAI_EXIT_FAILURE : MAI_EXIT_OK;
	if (audit_event_append(log, AUDIT_EVENT_AGENT_STOP, NULL, NULL, &aerr) < 0)
		log_errorx("cannot record agent_stop in the audit log %s", cfg->audit.log_dir);
out:
	viewproc_stop(view_pid);
	daemon_free(d);
	bandit_worker_free(sc.bandit);
	docker_health_stop(sc.health);
	if (log)
		audit_close(log);
	sandbox_free(sc.sb);
	free(sc.runtime_warning);
	rules_put(&sc, sc.rules);
	assess_rules_free(rules);
	config_free(cfg);
	return rc;
}
