#include "sandbox.h"

#include <signal.h>
#include <string.h>

#include "docker.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "pidfd_exit.h"
#include "sandbox_attach.h"
#include "sandbox_internal.h"
#include "sandbox_limits.h"
#include "sandbox_reap.h"
#include "sandbox_selftest.h"
#include "sandbox_usage.h"

const char *sandbox_verdict_to_string(enum sandbox_verdict v)
{
	switch (v) {
	case SANDBOX_VERDICT_EXITED: return "exited";
	case SANDBOX_VERDICT_TIMEOUT: return "timeout";
	case SANDBOX_VERDICT_OOM_KILLED: return "oom_killed";
	case SANDBOX_VERDICT_OUTPUT_LIMIT: return "output_limit";
	case SANDBOX_VERDICT_PIDS_LIMIT: return "pids_limit";
	case SANDBOX_VERDICT_SANDBOX_ERROR: return "sandbox_error";
	}
	return "unknown";
}

size_t sandbox_leftovers_removed(const struct sandbox *sb) { return sb->leftovers; }

int sandbox_ping(struct sandbox *sb, char **err)
{
	return docker_ping(sb->docker, err) == DOCKER_OK ? 0 : -EHOSTDOWN;
}

void sandbox_cancel_all(struct sandbox *sb) { atomic_store(&sb->cancelled, true); }

static int remove_leftovers(struct sandbox *sb, char **err)
{
	char **ids = NULL;
	size_t n = 0;

	if (docker_container_list_by_label(sb->docker, "mai.instance", sb->instance, &ids, &n, err))
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		char *e = NULL;
		if (docker_container_remove(sb->docker, ids[i], &e) == DOCKER_OK) {
			sb->leftovers++;
		} else {
			log_warnx("removing leftover container %.12s failed: %s", ids[i], e);
			free(e);
		}
	}
	if (n)
		log_info("removed %zu leftover sandbox container(s) of instance '%s'", sb->leftovers,
			 sb->instance);
	docker_strv_free(ids);
	return 0;
}

/* Removes the containers an earlier run could not remove (Docker was
 * down); those that still cannot be removed stay on the list. The list is
 * taken whole, so Docker is called without the lock. */
static void remove_orphans(struct sandbox *sb)
{
	char **ids;
	size_t n, kept = 0;

	pthread_mutex_lock(&sb->orphans_lock);
	ids = sb->orphans;
	n = sb->n_orphans;
	sb->orphans = NULL;
	sb->n_orphans = 0;
	pthread_mutex_unlock(&sb->orphans_lock);
	for (size_t i = 0; i < n; i++) {
		char *err = NULL;
		if (docker_container_remove(sb->docker, ids[i], &err) == DOCKER_OK) {
			log_info("removed container %.12s left by a run that Docker broke off",
				 ids[i]);
			free(ids[i]);
		} else {
			free(err);
			ids[kept++] = ids[i];
		}
	}
	if (kept == 0) {
		free(ids);
		return;
	}
	pthread_mutex_lock(&sb->orphans_lock);
	ids = xrealloc(ids, (kept + sb->n_orphans) * sizeof(*ids));
	for (size_t i = 0; i < sb->n_orphans; i++)
		ids[kept + i] = sb->orphans[i];
	free(sb->orphans);
	sb->orphans = ids;
	sb->n_orphans += kept;
	pthread_mutex_unlock(&sb->orphans_lock);
}

/* The reaper's removal, as discard does it (a failure keeps an orphan). */
static void remove_container(void *arg, char *id)
{
	struct sandbox_container c = { .id = id };

	sandbox_container_discard(arg, &c);
}

int sandbox_new(const struct sandbox_options *opts, struct sandbox **out, char **err)
{
	struct docker_options dopts = { .socket_path = opts->socket_path };
	struct sandbox *sb = xcalloc(1, sizeof(*sb));
	struct docker_version v = { 0 };
	struct docker_info info = { 0 };
	struct docker_image img = { 0 };
	int r = -EIO;

	*out = NULL;
	sb->docker = docker_new(&dopts);
	sb->image = xstrdup(opts->image ? opts->image : "mai-sandbox:latest");
	sb->user = xstrdup(opts->user ? opts->user : "1000:1000");
	sb->instance = xstrdup(opts->instance_id ? opts->instance_id : "default");
	sb->workers = opts->workers ? opts->workers : 1;
	pthread_mutex_init(&sb->orphans_lock, NULL);
	pthread_mutex_init(&sb->trust_lock, NULL);
	sandbox_quiet_init(&sb->quiet);
	/* A backlog beyond what the workers leave behind is removed at once. */
	sb->reaper = sandbox_reaper_start(remove_container, sb, &sb->quiet, 2 * sb->workers);
	for (int t = 0; t < TRUST_COUNT; t++) {
		sb->trust[t] = opts->trust[t];
		sb->runtime[t] = xstrdup(opts->trust[t].runtime ? opts->trust[t].runtime : "runc");
		sb->trust[t].runtime = sb->runtime[t];
	}
	sandbox_machine_probe(&sb->machine);

	if (docker_ping(sb->docker, err)) {
		r = -EHOSTDOWN; /* the caller may wait for Docker to come */
		goto fail;
	}
	if (docker_version(sb->docker, &v, err) ||
	    docker_info(sb->docker, &info, err))
		goto fail;
	sb->docker_version = xstrdup(v.version);
	sb->cgroup_version = info.cgroup_version;
	sandbox_exit_start(sb, opts->exit_source);
	for (int t = 0; t < TRUST_COUNT; t++) {
		if (!docker_info_has_runtime(&info, sb->runtime[t])) {
			*err = xasprintf("the runtime '%s' of trust level %s is not known to Docker "
					 "%s: install it and register it in dockerd's daemon.json, or set "
					 "another runtime for %s in config/sandbox.yaml", sb->runtime[t],
					 trust_to_string((enum trust)t), v.version,
					 trust_to_string((enum trust)t));
			r = -ENOENT;
			goto fail;
		}
	}
	if (docker_image_inspect(sb->docker, sb->image, &img, err))
		goto fail;
	sb->image_id = xstrdup(img.id);
	if (remove_leftovers(sb, err) < 0)
		goto fail;
	if ((r = sandbox_net_start(sb, &opts->network, err)) < 0)
		goto fail;
	r = -EIO;
	if (opts->self_test && sandbox_selftest_run(sb, err) < 0) {
		r = -EPERM;
		goto fail;
	}
	/* After the self-test: no warm container exists before confinement is
	 * known to hold. */
	sb->pool = sandbox_pool_start(sb, opts->pool_size);
	docker_version_clear(&v);
	docker_info_clear(&info);
	docker_image_clear(&img);
	*out = sb;
	return 0;
fail:
	docker_version_clear(&v);
	docker_info_clear(&info);
	docker_image_clear(&img);
	sandbox_free(sb);
	return r;
}

void sandbox_free(struct sandbox *sb)
{
	if (!sb)
		return;
	sandbox_quiet_release(&sb->quiet);
	sandbox_pool_stop(sb->pool);
	/* Drains the removals still queued; those that fail become orphans. */
	sandbox_reaper_stop(sb->reaper);
	sandbox_exit_stop(sb);
	remove_orphans(sb);
	for (size_t i = 0; i < sb->n_orphans; i++) {
		/* Found by label at the next start (remove_leftovers). */
		log_warnx("container %.12s is left in Docker: it could not be removed",
			  sb->orphans[i]);
		free(sb->orphans[i]);
	}
	free(sb->orphans);
	pthread_mutex_destroy(&sb->orphans_lock);
	pthread_mutex_destroy(&sb->trust_lock);
	sandbox_net_stop(sb);
	sandbox_quiet_destroy(&sb->quiet);
	docker_free(sb->docker);
	free(sb->image);
	free(sb->image_id);
	free(sb->user);
	free(sb->instance);
	free(sb->docker_version);
	for (int t = 0; t < TRUST_COUNT; t++)
		free(sb->runtime[t]);
	free(sb);
}

static void set_message(struct sandbox_result *r, char *msg)
{
	free(r->message);
	r->message = msg;
}

/* over_cap: output went past a cap (with the end marker taken off), which
 * ends the run, or came just past it, by less than the marker's length, as
 * the script ended. */
static void classify(struct sandbox_result *r, enum sandbox_attach_end end, bool killed,
		     bool over_cap, const struct docker_container_state *st,
		     const struct sandbox_usage *u, int64_t code)
{
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
	} else if (st->oom_killed || u->oom_kills > 0 ||
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

/* gVisor's own kernel (the Sentry) and file proxy run as host threads inside
 * the container's pids cgroup, about 40 at rest and more under load, while
 * the script's processes are the Sentry's tasks. Under runsc the host-side
 * PidsLimit therefore gets this allowance on top of the configured pids, so
 * that the configured number stays what the script may start. */
#define RUNSC_PIDS_ALLOWANCE 128

bool sandbox_is_gvisor(const struct sandbox *sb, enum trust trust)
{
	return sb->runtime[trust] && strcmp(sb->runtime[trust], "runsc") == 0;
}

static int64_t host_pids_limit(const struct sandbox *sb, enum trust trust, int64_t pids)
{
	return sandbox_is_gvisor(sb, trust) ? pids + RUNSC_PIDS_ALLOWANCE : pids;
}

int sandbox_container_prepare(struct sandbox *sb, enum trust trust,
			      const struct sandbox_limits *limits, const char *job_label,
			      const struct sandbox_container_spec *spec,
			      struct sandbox_container *out, char **err)
{
	const char *cmd[] = { "python3", "-I", "-u", "-B", "-c",
			      spec->program ? spec->program : sandbox_bootstrap, NULL };
	/* The allowlist mode adds the proxy's variables (sandbox_net.c). */
	const char *env[16] = { "HOME=/tmp", "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin" };
	size_t n_env = 3;
	const struct docker_label labels[] = {
		{ "mai.agent", "1" },
		{ "mai.instance", sb->instance },
		{ "mai.job", job_label ? job_label : "" },
	};
	bool network = spec->network && sb->net_name;
	for (char **v = network ? sb->net_env : NULL; v && *v && n_env + 1 < ARRAY_SIZE(env); v++)
		env[n_env++] = *v;
	struct docker_create_params p = {
		.image = spec->image ? spec->image : sb->image, .cmd = cmd, .env = env,
		.user = sb->user, .workdir = "/tmp",
		.labels = labels, .n_labels = ARRAY_SIZE(labels), .open_stdin = true,
		.memory_bytes = limits->memory_bytes, .nano_cpus = limits->nano_cpus,
		.pids_limit = host_pids_limit(sb, trust, limits->pids),
		.tmpfs_bytes = limits->tmpfs_bytes,
		.nofile = limits->nofile, .fsize_bytes = limits->fsize_bytes,
		.runtime = sb->runtime[trust],
		.network = network ? sb->net_name : NULL,
		.deps_tmpfs_bytes = spec->deps_tmpfs_bytes,
	};

	memset(out, 0, sizeof(*out));
	out->limits = *limits;
	if (docker_container_create(sb->docker, &p, &out->id, err))
		return -EIO;
	/* Attach before start: not a byte of output is missed. */
	if (docker_container_attach(sb->docker, out->id, &out->stream, err) ||
	    docker_container_start(sb->docker, out->id, err)) {
		sandbox_container_discard(sb, out);
		return -EIO;
	}
	sandbox_exit_watch(sb, trust, out);
	return 0;
}

void sandbox_container_discard(struct sandbox *sb, struct sandbox_container *c)
{
	char *err = NULL;

	if (c->stream)
		docker_stream_close(c->stream);
	sandbox_exit_unwatch(sb, c);
	if (c->id && docker_container_remove(sb->docker, c->id, &err)) {
		log_warnx("removing container %.12s failed: %s; trying again before the next run",
			  c->id, err);
		free(err);
		pthread_mutex_lock(&sb->orphans_lock);
		sb->orphans = xrealloc(sb->orphans, (sb->n_orphans + 1) * sizeof(*sb->orphans));
		sb->orphans[sb->n_orphans++] = c->id;
		pthread_mutex_unlock(&sb->orphans_lock);
		c->id = NULL;
	}
	free(c->id);
	memset(c, 0, sizeof(*c));
}

void sandbox_container_release(struct sandbox *sb, struct sandbox_container *c)
{
	if (c->id && sandbox_reaper_add(sb->reaper, c->id) == 0)
		c->id = NULL;
	sandbox_container_discard(sb, c); /* in place when the reaper has no thread */
}

void sandbox_wait_removed(struct sandbox *sb) { sandbox_reaper_wait(sb->reaper); }

/* A warm container for the job, with the job's limits applied, or -EAGAIN. */
static int take_warm(struct sandbox *sb, enum trust trust,
		     const struct sandbox_limits *want, struct sandbox_container *c)
{
	char *err = NULL;

	if (!sb->pool || sandbox_pool_take(sb->pool, trust, c) < 0)
		return -EAGAIN;
	if (c->limits.memory_bytes == want->memory_bytes && c->limits.nano_cpus == want->nano_cpus &&
	    c->limits.pids == want->pids)
		return 0;
	/* Scaled limits: memory, CPUs and pids can change on a running
	 * container; tmpfs and ulimits stay as created (reported as applied). */
	if (docker_container_update(sb->docker, c->id, want->memory_bytes, want->nano_cpus,
				    host_pids_limit(sb, trust, want->pids), &err) != DOCKER_OK) {
		log_warnx("updating the limits of pooled container %.12s failed (%s); using a cold "
			  "one", c->id, err);
		free(err);
		sandbox_container_discard(sb, c);
		return -EAGAIN;
	}
	c->limits.memory_bytes = want->memory_bytes;
	c->limits.nano_cpus = want->nano_cpus;
	c->limits.pids = want->pids;
	return 0;
}

int sandbox_run(struct sandbox *sb, const struct sandbox_job *job, struct sandbox_result *out)
{
	static const struct sandbox_run_mode plain = { 0 };

	return sandbox_run_internal(sb, job, &plain, out);
}

int sandbox_run_internal(struct sandbox *sb, const struct sandbox_job *job,
			 const struct sandbox_run_mode *mode, struct sandbox_result *out)
{
	bool deps = job->n_dependencies > 0;
	bool network = !mode->no_network && sandbox_trust_has_network(sb, job->trust);
	/* A level with network runs in the pip image: it has pip and the
	 * whole standard library (http.client, ssl) that network code needs. */
	struct sandbox_container_spec spec = {
		.image = mode->image ? mode->image : (deps || network ? sb->pip_image : NULL),
		.program = mode->program,
		.network = network,
		.deps_tmpfs_bytes = deps ? sb->install_size : 0,
	};
	_cleanup_free_ char *deps_spec = NULL;
	struct sandbox_container c = { 0 };
	struct docker_container_state st = { 0 };
	struct sandbox_usage usage = { 0 };
	struct sandbox_limits want;
	struct sandbox_demux demux;
	enum sandbox_attach_end end;
	enum docker_error de = DOCKER_OK;
	struct sandbox_exit_watch watch = { .fd = -1 };
	char nonce[SANDBOX_NONCE_LEN + 1], marker[SANDBOX_MARKER_MAX + 1];
	_cleanup_free_ uint8_t *input = NULL;
	size_t input_len;
	char *err = NULL;
	int64_t t0, code = -1;
	bool killed = false, have_state = false;
	int io_error = 0, r = 0;

	memset(out, 0, sizeof(*out));
	out->trust = job->trust;
	if (atomic_load(&sb->cancelled)) {
		out->verdict = SANDBOX_VERDICT_SANDBOX_ERROR;
		out->exit_code = -1;
		set_message(out, xstrdup("the agent is stopping; the script runs when the agent "
					 "next starts"));
		return -ECANCELED;
	}
	remove_orphans(sb);
	struct sandbox_limits base;
	bool no_scale;
	sandbox_trust_base(sb, job->trust, &base, &no_scale);
	sandbox_limits_compute(&base, &job->metrics, !no_scale, &sb->machine, sb->workers, &want);
	if (want.timeout_ms < mode->min_timeout_ms)
		want.timeout_ms = mode->min_timeout_ms;
	out->limits = want;
	out->runtime = xstrdup(sb->runtime[job->trust]);
	out->image = xstrdup(spec.image ? spec.image : sb->image);
	out->image_id = xstrdup(spec.image && sb->pip_image_id ? sb->pip_image_id : sb->image_id);
	out->docker_version = xstrdup(sb->docker_version);
	out->cgroup_version = sb->cgroup_version;
	sandbox_demux_init(&demux, (size_t)want.stdout_max, (size_t)want.stderr_max);

	if (deps && !(spec.network && sb->pip_image_id)) {
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
		deps_spec = sandbox_deps_spec(sb, job);
		/* The install has its own time limit on top of the script's. */
		want.timeout_ms += sb->install_timeout_ms;
	}
	/* Warm containers are plain: default image, the level's network. */
	bool plain = !deps && !mode->image && !mode->program && !mode->no_network;
	sandbox_quiet_enter(&sb->quiet);
	if ((!plain || take_warm(sb, job->trust, &want, &c) < 0) &&
	    sandbox_container_prepare(sb, job->trust, &want, job->job_id, &spec, &c, &err) < 0) {
		fail_result(out, err);
		out->out = (struct sandbox_output){ demux.out.data, 0, 0, false };
		out->err = (struct sandbox_output){ demux.err.data, 0, 0, false };
		sandbox_quiet_leave(&sb->quiet);
		return -EIO;
	}
	out->limits = c.limits;
	out->limits.timeout_ms = want.timeout_ms;
	out->container_id = xstrdup(c.id);
	sandbox_exit_pump_watch(&c, &watch);
	t0 = monoclock_ms();
	sandbox_end_marker(nonce, marker);
	sandbox_demux_expect_marker(&demux, marker);
	input = sandbox_job_input(job, deps_spec, nonce, &input_len);
	sandbox_usage_start(&usage, sb->docker, c.id, sb->cgroup_version);
	end = sandbox_attach_pump(c.stream, &demux, input, input_len, &watch, t0 + want.timeout_ms,
				  true, &sb->cancelled, &io_error);
	/* The kernel says the init has ended and all output is in. Its OOM and
	 * pids counters are read before Docker removes the cgroup; if it is
	 * already gone, Docker says how the run ended, as without the kernel. */
	if (end == SANDBOX_ATTACH_EXITED) {
		if (sandbox_usage_stop(&usage)) {
			code = pidfd_exit_code(watch.status);
			st.oom_killed = usage.oom_kills > 0;
			have_state = true;
			out->ended_by_kernel = true;
			end = SANDBOX_ATTACH_EOF;
		} else {
			end = sandbox_attach_pump(c.stream, &demux, NULL, 0, NULL,
						  t0 + want.timeout_ms, true, &sb->cancelled,
						  &io_error);
		}
	}
	sandbox_demux_strip_marker(&demux);
	/* Close the stream before a kill: while dockerd blocks writing output
	 * that nobody reads, it cannot finish the container's exit, and the kill
	 * call would wait for that. */
	docker_stream_close(c.stream);
	c.stream = NULL;
	if (end != SANDBOX_ATTACH_EOF) {
		if (docker_container_kill(sb->docker, c.id, "KILL", &err)) {
			log_warnx("killing container %.12s failed: %s", c.id, err);
			free(err);
			err = NULL;
		}
		killed = true;
	}
	/* Usually the script has ended when its output does: then the state
	 * already holds the exit code, and no wait is needed. */
	if (!killed && !have_state) {
		de = docker_container_inspect(sb->docker, c.id, &st, &err);
		if (de == DOCKER_OK && !st.running) {
			code = st.exit_code;
			have_state = true;
		} else {
			docker_container_state_clear(&st);
			free(err);
			err = NULL;
		}
	}
	/* The output may close before the process ends (a script that closes
	 * stdout and keeps running): the deadline still holds. */
	if (!have_state) {
		int64_t left = t0 + want.timeout_ms - monoclock_ms();
		de = docker_container_wait(sb->docker, c.id,
					   killed ? 30000 : (left > 0 ? left : 1) + 50, &code, &err);
		if (de == DOCKER_ERR_TIMEOUT && !killed) {
			free(err);
			err = NULL;
			docker_container_kill(sb->docker, c.id, "KILL", &err);
			free(err);
			err = NULL;
			killed = true;
			end = SANDBOX_ATTACH_DEADLINE;
			de = docker_container_wait(sb->docker, c.id, 30000, &code, &err);
		}
	}
	out->wall_ms = monoclock_ms() - t0;
	sandbox_usage_stop(&usage);
	out->peak_memory_bytes = usage.peak_memory_bytes;
	out->cpu_ms = usage.cpu_ns / 1000000;
	out->pids_peak = usage.pids_peak;
	if (de == DOCKER_OK && !have_state)
		de = docker_container_inspect(sb->docker, c.id, &st, &err);
	if (de != DOCKER_OK) {
		fail_result(out, err);
		r = -EIO;
	} else if (end == SANDBOX_ATTACH_CANCELLED) {
		out->verdict = SANDBOX_VERDICT_SANDBOX_ERROR;
		out->exit_code = -1;
		set_message(out, xstrdup("the agent stopped (SIGTERM or SIGINT) while the script "
					 "ran and killed it; it runs again when the agent next "
					 "starts"));
		r = -ECANCELED;
	} else if (end == SANDBOX_ATTACH_ERROR) {
		fail_result(out, xasprintf("the attach stream broke: %s", strerror(-io_error)));
		r = -EIO;
	} else {
		classify(out, end, killed, demux.out.truncated || demux.err.truncated, &st, &usage,
			 code);
	}
	docker_container_state_clear(&st);
	/* Removed in the background: the result does not wait for it. */
	sandbox_quiet_leave(&sb->quiet);
	sandbox_container_release(sb, &c);
	out->out = (struct sandbox_output){ demux.out.data, demux.out.len, demux.out.total,
					     demux.out.truncated };
	out->err = (struct sandbox_output){ demux.err.data, demux.err.len, demux.err.total,
					     demux.err.truncated };
	if (deps) {
		out->limits.timeout_ms -= sb->install_timeout_ms;
		sandbox_deps_collect(out);
	}
	return r;
}

void sandbox_result_clear(struct sandbox_result *r)
{
	free(r->out.data);
	free(r->err.data);
	free(r->runtime);
	free(r->image);
	free(r->image_id);
	free(r->docker_version);
	free(r->container_id);
	free(r->message);
	json_decref(r->dependencies);
	memset(r, 0, sizeof(*r));
}
