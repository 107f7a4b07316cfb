/* The sandbox, composed: the trust table (sandbox_trust.h) and an engine
 * behind the engine seam (sandbox_engine.h), picked by cmd/; here, the
 * policy of a run: its limits, its input, its output caps and its verdict,
 * the same whichever engine runs it. */
#include "sandbox.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "sandbox_bootstrap.h"
#include "sandbox_core.h"
#include "sandbox_deps.h"
#include "sandbox_engine.h"
#include "sandbox_engine_docker.h"
#include "sandbox_net.h"
#include "sandbox_runner.h"
#include "sandbox_selftest.h"
#include "sandbox_trust.h"
#include "stagetime.h"

struct sandbox {
	const struct sandbox_engine_ops *ops;
	void *engine;               /* the ops' context */
	const struct sandbox_engine_info *info;
	char *image;
	struct sandbox_trust *trust;
	atomic_bool cancelled;      /* set by sandbox_cancel_all() */
};

static int run_job(void *sb, const struct sandbox_job *job, const struct sandbox_run_mode *mode,
		   struct sandbox_result *out);

size_t sandbox_leftovers_removed(const struct sandbox *sb) { return sb->info->leftovers; }

int sandbox_ping(struct sandbox *sb, char **err) { return sb->ops->ping(sb->engine, err); }

void sandbox_cancel_all(struct sandbox *sb) { atomic_store(&sb->cancelled, true); }

enum sandbox_exit_source sandbox_exit_source_used(const struct sandbox *sb)
{
	return sb->info->exit_source;
}

unsigned sandbox_warm_ready(struct sandbox *sb, enum trust t)
{
	return sb->ops->warm_ready ? sb->ops->warm_ready(sb->engine, t) : 0;
}

bool sandbox_trust_has_network(const struct sandbox *sb, enum trust t)
{
	return sb->info->network && sandbox_trust_allowlist(sb->trust, t);
}

const struct sandbox_engine_info *sandbox_engine(const struct sandbox *sb) { return sb->info; }

json_t *sandbox_nodes(struct sandbox *sb)
{
	return sb->ops->nodes ? sb->ops->nodes(sb->engine) : NULL;
}

unsigned sandbox_pool_size(const struct sandbox *sb) { return sb->info->pool_size; }

int sandbox_new(const struct sandbox_options *opts, struct sandbox **out, char **err)
{
	struct sandbox *sb = xcalloc(1, sizeof(*sb));
	const struct sandbox_runner runner = { run_job, sb };
	const struct sandbox_engine_setup setup = { opts, NULL };
	int r;

	*out = NULL;
	sb->ops = opts->engine.ops ? opts->engine.ops : &sandbox_engine_docker;
	sb->image = xstrdup(opts->image ? opts->image : "mai-sandbox:latest");
	sb->trust = sandbox_trust_new(opts->trust, opts->workers);
	struct sandbox_engine_setup s = setup;
	s.trust = sb->trust;
	if ((r = sb->ops->open(&s, &sb->engine, err)) < 0)
		goto fail;
	sb->info = sb->ops->info(sb->engine);
	/* An engine whose nodes prove their own confinement has its own probe
	 * (one per node, before it places a run there). */
	if (opts->self_test && !(sb->info->caps & SANDBOX_ENGINE_PROBES_NODES) &&
	    sandbox_selftest_run(&runner, sandbox_trust_is_gvisor(sb->trust, TRUST_UNTRUSTED),
				 sandbox_trust_runc_level(sb->trust),
				 sb->info->pip && sb->info->pip->image_id ? sb->info->pip->image
									  : NULL,
				 err) < 0) {
		r = -EPERM;
		goto fail;
	}
	if (sb->ops->warm_up)
		sb->ops->warm_up(sb->engine);
	*out = sb;
	return 0;
fail:
	sandbox_free(sb);
	return r;
}

void sandbox_free(struct sandbox *sb)
{
	if (!sb)
		return;
	if (sb->engine)
		sb->ops->close(sb->engine);
	sandbox_trust_free(sb->trust);
	free(sb->image);
	free(sb);
}

bool sandbox_set_limits(struct sandbox *sb, const struct sandbox_options *opts)
{
	bool changed = sandbox_trust_reload(sb->trust, opts->trust);

	if (changed && sb->ops->limits_changed)
		sb->ops->limits_changed(sb->engine);
	return changed;
}

int sandbox_parse_toml(struct sandbox *sb, const char *toml, size_t len, json_t **table,
		       char **err)
{
	const struct sandbox_runner runner = { run_job, sb };

	if (!sb->info->pip) {
		*err = xasprintf("the %s engine has the pip image that reads PEP 723 blocks only "
				 "when a trust level has network: allowlist: set one in "
				 "config/sandbox.yaml and restart the agent", sb->info->name);
		return -ENOENT;
	}
	if (!sb->info->pip->image_id && sb->ops->find_pip)
		sb->ops->find_pip(sb->engine); /* built since the engine opened */
	return sandbox_deps_parse_toml(&runner, sb->info->pip, toml, len, table, err);
}

void sandbox_wait_removed(struct sandbox *sb)
{
	if (sb->ops->wait_removed)
		sb->ops->wait_removed(sb->engine);
}

void sandbox_hold_quiet(struct sandbox *sb)
{
	if (sb->ops->hold_quiet)
		sb->ops->hold_quiet(sb->engine, true);
}

void sandbox_release_quiet(struct sandbox *sb)
{
	if (sb->ops->hold_quiet)
		sb->ops->hold_quiet(sb->engine, false);
}

static void set_message(struct sandbox_result *r, char *msg)
{
	free(r->message);
	r->message = msg;
}

/* over_cap: output went past a cap (with the end marker taken off), which
 * ends the run, or came just past it, by less than the marker's length, as
 * the script ended. */
static void classify(struct sandbox_result *r, enum sandbox_attach_end end, bool over_cap,
		     const struct sandbox_engine_end *u)
{
	bool killed = u->killed;
	int64_t code = u->code;
	const char *level = trust_to_string(r->trust);

	r->exit_code = killed ? -1 : (int)code;
	r->signal = killed ? SIGKILL : (code > 128 && code < 128 + 65 ? (int)code - 128 : 0);
	if (over_cap) {
		r->verdict = SANDBOX_VERDICT_OUTPUT_LIMIT;
		set_message(r, xasprintf("the script wrote more than its output limit (stdout %lld, "
					 "stderr %lld bytes)%s; print less, or raise "
					 "stdout_max/stderr_max for %s in config/sandbox.yaml",
					 (long long)r->limits.stdout_max,
					 (long long)r->limits.stderr_max,
					 killed ? " and was killed" : "", level));
	} else if (u->oom_killed || u->oom_kills > 0 ||
		   (!killed && r->signal == SIGKILL && r->limits.memory_bytes > 0 &&
		    u->peak_memory_bytes >= r->limits.memory_bytes - r->limits.memory_bytes / 16)) {
		/* Under runsc, Docker misses some OOM kills (OOMKilled false, exit
		 * 137): the cgroup's own count, when a sample saw it, or a SIGKILL
		 * that no one but the kernel sent at the memory limit says so. */
		r->verdict = SANDBOX_VERDICT_OOM_KILLED;
		/* The kernel kills at the limit: usage reached it, even when the
		 * last sample came before the final allocations (the cgroup is
		 * gone once the container has died, so there is no later read). */
		if (r->peak_memory_bytes < r->limits.memory_bytes)
			r->peak_memory_bytes = r->limits.memory_bytes;
		set_message(r, xasprintf("the script went past its memory limit of %lld MiB and was "
					 "killed; use less memory, or raise memory for %s in "
					 "config/sandbox.yaml", (long long)(r->limits.memory_bytes >> 20),
					 level));
	} else if (u->pids_limit_hits > 0) {
		r->verdict = SANDBOX_VERDICT_PIDS_LIMIT;
		set_message(r, xasprintf("the script tried to run more than %lld processes or threads "
					 "at once (refused %lld times)%s; start fewer, or raise pids for "
					 "%s in config/sandbox.yaml", (long long)r->limits.pids,
					 (long long)u->pids_limit_hits,
					 end == SANDBOX_ATTACH_DEADLINE ? " and ran out of time" : "",
					 level));
	} else if (end == SANDBOX_ATTACH_DEADLINE || killed) {
		r->verdict = SANDBOX_VERDICT_TIMEOUT;
		set_message(r, xasprintf("the script ran past its wall-clock limit of %lld ms and was "
					 "killed; make it finish sooner, or raise timeout for %s in "
					 "config/sandbox.yaml", (long long)r->limits.timeout_ms, level));
	} else {
		r->verdict = SANDBOX_VERDICT_EXITED;
		if (r->signal)
			set_message(r, xasprintf("the script was killed by signal %d (%s)", r->signal,
						 strsignal(r->signal)));
		else if (code != 0)
			set_message(r, xasprintf("the script exited with status %lld; see its stderr",
						 (long long)code));
	}
}

static void fail_result(struct sandbox_result *r, char *err)
{
	r->verdict = SANDBOX_VERDICT_SANDBOX_ERROR;
	r->exit_code = -1;
	set_message(r, xasprintf("the sandbox could not run the script: %s", err ? err : "unknown"));
	free(err);
}

int sandbox_run(struct sandbox *sb, const struct sandbox_job *job, struct sandbox_result *out)
{
	static const struct sandbox_run_mode plain = { 0 };

	return run_job(sb, job, &plain, out);
}

static int run_job(void *arg, const struct sandbox_job *job, const struct sandbox_run_mode *mode,
		   struct sandbox_result *out)
{
	struct sandbox *sb = arg;
	const struct sandbox_pip *pip = sb->info->pip;
	bool deps = job->n_dependencies > 0;
	bool network = !mode->no_network && sandbox_trust_has_network(sb, job->trust);
	_cleanup_free_ char *deps_spec = NULL;
	struct sandbox_engine_run *run = NULL;
	struct sandbox_engine_started started = { 0 };
	struct sandbox_engine_end end = { 0 };
	struct sandbox_limits want;
	struct sandbox_demux demux;
	enum sandbox_attach_end how;
	char nonce[SANDBOX_NONCE_LEN + 1], marker[SANDBOX_MARKER_MAX + 1];
	_cleanup_free_ uint8_t *input = NULL;
	size_t input_len;
	char *err = NULL;
	int64_t t0;
	int io_error = 0, r = 0;

	const atomic_bool *cancel = job->cancel ? job->cancel : &sb->cancelled;
	memset(out, 0, sizeof(*out));
	out->trust = job->trust;
	if (atomic_load(&sb->cancelled) || atomic_load(cancel)) {
		out->verdict = SANDBOX_VERDICT_SANDBOX_ERROR;
		out->exit_code = -1;
		set_message(out, xstrdup("the agent is stopping; the script runs when the agent "
					 "next starts"));
		return -ECANCELED;
	}
	/* A level with network runs in the pip image: it has pip and the
	 * whole standard library (http.client, ssl) that network code needs. */
	const char *image = mode->image ? mode->image : (deps || network) && pip ? pip->image : NULL;
	sandbox_trust_limits(sb->trust, job->trust, &job->metrics, &want);
	if (want.timeout_ms < mode->min_timeout_ms)
		want.timeout_ms = mode->min_timeout_ms;
	out->limits = want;
	out->runtime = xstrdup(sandbox_trust_runtime(sb->trust, job->trust));
	out->image = xstrdup(image ? image : sb->image);
	out->image_id = xstrdup(image && pip && pip->image_id ? pip->image_id : sb->info->image_id);
	out->docker_version = xstrdup(sb->info->version);
	out->cgroup_version = sb->info->cgroup_version;
	out->engine = xstrdup(sb->info->name);
	out->endpoint = xstrdup(sb->info->endpoint);
	sandbox_demux_init(&demux, (size_t)want.stdout_max, (size_t)want.stderr_max);

	if (deps && !(network && pip && pip->image_id)) {
		fail_result(out, xasprintf("the script has PEP 723 dependencies but trust level %s "
					   "has no network to install them with; set network: "
					   "allowlist for %s in config/sandbox.yaml",
					   trust_to_string(job->trust),
					   trust_to_string(job->trust)));
		out->out = (struct sandbox_output){ demux.out.data, 0, 0, false };
		out->err = (struct sandbox_output){ demux.err.data, 0, 0, false };
		return -EINVAL;
	}
	if (deps) {
		deps_spec = sandbox_deps_spec(pip, job);
		/* The install has its own time limit on top of the script's. */
		want.timeout_ms += pip->install_timeout_ms;
	}
	sandbox_end_marker(nonce, marker);
	sandbox_demux_expect_marker(&demux, marker);
	input = sandbox_job_input(job, deps_spec, nonce, &input_len);
	const struct sandbox_engine_spec spec = {
		.trust = job->trust, .job_label = job->job_id, .limits = want,
		.host_pids = sandbox_trust_host_pids(sb->trust, job->trust, want.pids),
		.core_bytes = SANDBOX_CORE_LIMIT, .image = image, .program = mode->program ? mode->program : sandbox_bootstrap,
		.bootstrap = !mode->program, .network = network,
		.deps_tmpfs_bytes = deps ? pip->install_size : 0,
		/* Warm containers are plain: default image, the level's network. */
		.warm_ok = !deps && !mode->image && !mode->program && !mode->no_network,
		.input = input, .input_len = input_len,
	};
	if (sb->ops->start(sb->engine, &spec, &run, &started, &err) < 0) {
		fail_result(out, err);
		out->out = (struct sandbox_output){ demux.out.data, 0, 0, false };
		out->err = (struct sandbox_output){ demux.err.data, 0, 0, false };
		return -EIO;
	}
	stagetime_mark(STAGE_CONTAINER);
	out->limits = started.limits;
	out->limits.timeout_ms = want.timeout_ms;
	out->container_id = started.id;
	out->run_uid = started.uid;
	out->seccomp = started.seccomp;
	t0 = monoclock_ms();
	const struct sandbox_engine_io io = {
		.demux = &demux, .deadline_ms = t0 + want.timeout_ms, .cancel = cancel,
	};
	how = sb->ops->wait(sb->engine, run, &io, &io_error);
	sandbox_demux_strip_marker(&demux);
	int rr = sb->ops->read(sb->engine, run, &how, &io, &end);
	/* From the run's start: a Swarm task's placement is not its time. */
	out->wall_ms = monoclock_ms() - (end.began_ms ? end.began_ms : t0);
	out->peak_memory_bytes = end.peak_memory_bytes;
	out->cpu_ms = end.cpu_ns / 1000000;
	out->pids_peak = end.pids_peak;
	out->ended_by_kernel = end.ended_by_kernel;
	out->usage_source = end.usage_source;
	out->node = end.node;
	end.node = NULL;
	if (rr < 0) {
		fail_result(out, end.err);
		end.err = NULL;
		r = -EIO;
	} else if (how == SANDBOX_ATTACH_CANCELLED) {
		out->verdict = SANDBOX_VERDICT_SANDBOX_ERROR;
		out->exit_code = -1;
		set_message(out, xstrdup("the agent stopped (SIGTERM or SIGINT) while the script "
					 "ran and killed it; it runs again when the agent next "
					 "starts"));
		r = -ECANCELED;
	} else if (how == SANDBOX_ATTACH_ERROR) {
		fail_result(out, xasprintf("the output stream broke: %s", strerror(-io_error)));
		r = -EIO;
	} else {
		classify(out, how, demux.out.truncated || demux.err.truncated, &end);
	}
	sandbox_engine_end_clear(&end);
	stagetime_mark(STAGE_OUTPUT);
	sb->ops->remove(sb->engine, run);
	stagetime_mark(STAGE_REMOVAL);
	out->out = (struct sandbox_output){ demux.out.data, demux.out.len, demux.out.total,
					     demux.out.truncated };
	out->err = (struct sandbox_output){ demux.err.data, demux.err.len, demux.err.total,
					     demux.err.truncated };
	if (deps) {
		out->limits.timeout_ms -= pip->install_timeout_ms;
		sandbox_deps_collect(out);
	}
	return r;
}
