/* The sandbox, composed: the trust table (sandbox_trust.h), the way the
 * end of a run is learnt (sandbox_exit.h), the allowlist network and pip
 * image (sandbox_net.h), the containers' life (sandbox_container.h) and the
 * warm pool (sandbox_pool.h); here, what a run does with them. */
#include "sandbox.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "docker.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "pidfd_exit.h"
#include "sandbox_attach.h"
#include "sandbox_bootstrap.h"
#include "sandbox_container.h"
#include "sandbox_core.h"
#include "sandbox_deps.h"
#include "sandbox_limits.h"
#include "sandbox_exit.h"
#include "sandbox_net.h"
#include "sandbox_pool.h"
#include "sandbox_quiet.h"
#include "sandbox_runner.h"
#include "sandbox_seccomp.h"
#include "sandbox_selftest.h"
#include "sandbox_trust.h"
#include "sandbox_uidcheck.h"
#include "sandbox_uids.h"
#include "sandbox_usage.h"
#include "stagetime.h"

struct sandbox {
	struct docker *docker;
	char *image, *image_id, *instance;
	struct sandbox_uids *uids; /* each container's own uid */
	char *seccomp;             /* the profile every container gets */
	char *docker_version;
	int cgroup_version;
	size_t leftovers;
	struct sandbox_trust *trust;
	struct sandbox_exit *exit;
	struct sandbox_net *net;
	struct sandbox_containers *containers;
	struct sandbox_pool *pool;  /* NULL when pool_size is 0 */
	struct sandbox_quiet quiet; /* runs in flight */
	atomic_bool cancelled;      /* set by sandbox_cancel_all() */
};

static int run_job(void *sb, const struct sandbox_job *job, const struct sandbox_run_mode *mode,
		   struct sandbox_result *out);

size_t sandbox_leftovers_removed(const struct sandbox *sb) { return sb->leftovers; }

int sandbox_ping(struct sandbox *sb, char **err)
{
	return docker_ping(sb->docker, err) == DOCKER_OK ? 0 : -EHOSTDOWN;
}

void sandbox_cancel_all(struct sandbox *sb) { atomic_store(&sb->cancelled, true); }

enum sandbox_exit_source sandbox_exit_source_used(const struct sandbox *sb)
{
	return sandbox_exit_source_get(sb->exit);
}

unsigned sandbox_warm_ready(struct sandbox *sb, enum trust t)
{
	return sandbox_pool_ready(sb->pool, t);
}

bool sandbox_trust_has_network(const struct sandbox *sb, enum trust t)
{
	return sandbox_net_name(sb->net) && sandbox_trust_allowlist(sb->trust, t);
}

/* That the uid range is the agent's alone on this host, as the host sees
 * it: shifted by the subordinate range under dockerd's userns-remap. */
static int check_uid_range(struct sandbox *sb, const struct sandbox_options *opts, bool userns,
			   char **err)
{
	struct sandbox_uid_check c = { .first = opts->uid_first, .last = opts->uid_last,
				       .docker = sb->docker };
	char *warning = NULL;
	int r;

	if (userns && (r = sandbox_uid_range_remapped(NULL, NULL, opts->uid_first,
						      opts->uid_last, &c.first, &c.last, err)) < 0)
		return r;
	r = sandbox_uid_range_check(&c, &warning, err);
	if (warning)
		log_warnx("%s", warning);
	free(warning);
	if (r == 0)
		log_info("sandbox uid range %u-%u%s: no account, group, process or file of the "
			 "host uses it", opts->uid_first, opts->uid_last,
			 userns ? " (userns-remap)" : "");
	return r;
}

/* The first trust level that runs under runc, or -1. */
static int runc_level(const struct sandbox *sb)
{
	for (int t = 0; t < TRUST_COUNT; t++)
		if (!sandbox_trust_is_gvisor(sb->trust, (enum trust)t))
			return t;
	return -1;
}

/* A crash under runc meets the host kernel's core_pattern. */
static int check_core_dumps(struct sandbox *sb, char **err)
{
	char *msg = NULL;
	if (runc_level(sb) < 0)
		return 0;
	if (sandbox_core_check_host(&msg) < 0) {
		*err = msg;
		return -EPERM;
	}
	log_info("%s", msg);
	free(msg);
	return 0;
}

/* The parts that need Docker's answers (its version, cgroup version,
 * runtimes, image) and the leftovers of an earlier run gone. */
static int start_parts(struct sandbox *sb, const struct sandbox_options *opts, char **err)
{
	struct docker_version v = { 0 };
	struct docker_info info = { 0 };
	struct docker_image img = { 0 };
	bool allowlist = false;
	int r = -EIO;

	if (docker_ping(sb->docker, err))
		return -EHOSTDOWN; /* the caller may wait for Docker to come */
	if (docker_version(sb->docker, &v, err) || docker_info(sb->docker, &info, err))
		goto out;
	sb->docker_version = xstrdup(v.version);
	sb->cgroup_version = info.cgroup_version;
	sb->exit = sandbox_exit_start(opts->exit_source, sb->docker, sb->cgroup_version);
	for (int t = 0; t < TRUST_COUNT; t++) {
		const char *runtime = sandbox_trust_runtime(sb->trust, (enum trust)t);
		if (!docker_info_has_runtime(&info, runtime)) {
			*err = xasprintf("the runtime '%s' of trust level %s is not known to Docker "
					 "%s: install it and register it in dockerd's daemon.json, or set "
					 "another runtime for %s in config/sandbox.yaml", runtime,
					 trust_to_string((enum trust)t), v.version,
					 trust_to_string((enum trust)t));
			r = -ENOENT;
			goto out;
		}
		allowlist |= sandbox_trust_allowlist(sb->trust, (enum trust)t);
	}
	if (docker_image_inspect(sb->docker, sb->image, &img, err))
		goto out;
	sb->image_id = xstrdup(img.id);
	if (sandbox_containers_remove_leftovers(sb->docker, sb->instance, &sb->leftovers, err) < 0)
		goto out;
	if ((r = check_core_dumps(sb, err)) < 0)
		goto out;
	/* After the leftovers: their processes are gone. */
	if (opts->uid_check && (r = check_uid_range(sb, opts, info.userns, err)) < 0)
		goto out;
	r = sandbox_net_start(sb->docker, sb->instance, allowlist, &opts->network, &sb->net, err);
out:
	docker_version_clear(&v);
	docker_info_clear(&info);
	docker_image_clear(&img);
	return r;
}

unsigned sandbox_pool_size(const struct sandbox *sb)
{
	return sandbox_pool_capacity(sb->pool);
}

int sandbox_new(const struct sandbox_options *opts, struct sandbox **out, char **err)
{
	struct docker_options dopts = { .socket_path = opts->socket_path };
	struct sandbox *sb = xcalloc(1, sizeof(*sb));
	const struct sandbox_runner runner = { run_job, sb };
	struct sandbox_container_spec warm[TRUST_COUNT];
	int r;

	*out = NULL;
	sb->docker = docker_new(&dopts);
	sb->image = xstrdup(opts->image ? opts->image : "mai-sandbox:latest");
	sb->uids = sandbox_uids_new(opts->uid_first, opts->uid_last);
	sb->seccomp = sandbox_seccomp_profile();
	sb->instance = xstrdup(opts->instance_id ? opts->instance_id : "default");
	sandbox_quiet_init(&sb->quiet);
	sb->trust = sandbox_trust_new(opts->trust, opts->workers);
	if ((r = start_parts(sb, opts, err)) < 0)
		goto fail;
	const struct sandbox_container_config cc = {
		.docker = sb->docker, .image = sb->image, .uids = sb->uids,
		.seccomp_profile = sb->seccomp,
		.instance = sb->instance, .trust = sb->trust, .exit = sb->exit, .net = sb->net,
		.quiet = &sb->quiet, .workers = opts->workers,
	};
	sb->containers = sandbox_containers_new(&cc);
	if (opts->self_test &&
	    sandbox_selftest_run(&runner, sandbox_trust_is_gvisor(sb->trust, TRUST_UNTRUSTED),
				 runc_level(sb), err) < 0) {
		r = -EPERM;
		goto fail;
	}
	/* After the self-test: no warm container exists before confinement is
	 * known to hold. Warm containers are plain: default image, the level's
	 * network (in the pip image, which network code needs). */
	for (int t = 0; t < TRUST_COUNT; t++) {
		bool network = sandbox_trust_has_network(sb, (enum trust)t);
		warm[t] = (struct sandbox_container_spec){
			.image = network ? sandbox_net_pip(sb->net)->image : NULL, .network = network,
		};
	}
	unsigned pool = opts->pool_size, workers = opts->workers ? opts->workers : 1;
	if (pool == SANDBOX_POOL_AUTO) {
		struct sandbox_machine m;
		sandbox_machine_probe(&m);
		pool = sandbox_pool_auto_size(m.cpus_nano, m.memory_available, workers);
		log_info("warm pool: %u container%s per trust level (pool_size: auto; %d CPUs, "
			 "%lld MB available, %u workers)", pool, pool == 1 ? "" : "s",
			 (int)((m.cpus_nano + 999999999) / 1000000000),
			 (long long)(m.memory_available >> 20), workers);
	}
	/* A container keeps its uid until Docker has removed it: each worker's
	 * run, up to two per worker queued for removal, the warm ones. */
	uint64_t uids = (uint64_t)opts->uid_last - opts->uid_first + 1;
	uint64_t in_flight = 3 * (uint64_t)workers + (uint64_t)TRUST_COUNT * pool;
	if (uids < in_flight) {
		*err = xasprintf("the sandbox's uid_range %u-%u has %llu uids, fewer than the %llu "
				 "containers that can be in flight (%u workers, each with up to two "
				 "runs waiting for removal, and %u warm per trust level): widen it "
				 "in config/sandbox.yaml", opts->uid_first, opts->uid_last,
				 (unsigned long long)uids, (unsigned long long)in_flight, workers,
				 pool);
		r = -ERANGE;
		goto fail;
	}
	sb->pool = sandbox_pool_start(sb->containers, sb->trust, &sb->quiet, warm, pool);
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
	sandbox_quiet_release(&sb->quiet);
	sandbox_pool_stop(sb->pool);
	/* Drains the removals still queued, then the orphans. */
	sandbox_containers_free(sb->containers);
	/* And whatever else carries this instance's label: a create that an
	 * agent killed with SIGKILL had sent Docker may finish after the next
	 * start swept its leftovers. */
	size_t swept = 0;
	char *err = NULL;
	if (sandbox_containers_remove_leftovers(sb->docker, sb->instance, &swept, &err) < 0) {
		log_debug("no last sweep of instance '%s': %s", sb->instance, err);
		free(err);
	}
	sandbox_exit_stop(sb->exit);
	sandbox_net_stop(sb->net);
	sandbox_trust_free(sb->trust);
	sandbox_quiet_destroy(&sb->quiet);
	docker_free(sb->docker);
	free(sb->image);
	free(sb->image_id);
	sandbox_uids_free(sb->uids);
	free(sb->seccomp);
	free(sb->instance);
	free(sb->docker_version);
	free(sb);
}

bool sandbox_set_limits(struct sandbox *sb, const struct sandbox_options *opts)
{
	bool changed = sandbox_trust_reload(sb->trust, opts->trust);

	/* No container made with the old limits serves a later job. */
	if (changed && sb->pool) {
		log_info("sandbox limits changed: replacing the warm pool's containers");
		sandbox_pool_flush(sb->pool);
	}
	return changed;
}

int sandbox_parse_toml(struct sandbox *sb, const char *toml, size_t len, json_t **table,
		       char **err)
{
	const struct sandbox_runner runner = { run_job, sb };

	return sandbox_deps_parse_toml(&runner, sandbox_net_pip(sb->net), toml, len, table, err);
}

void sandbox_wait_removed(struct sandbox *sb) { sandbox_containers_wait_removed(sb->containers); }

void sandbox_hold_quiet(struct sandbox *sb) { sandbox_quiet_enter(&sb->quiet); }

void sandbox_release_quiet(struct sandbox *sb) { sandbox_quiet_leave(&sb->quiet); }

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

/* A warm container for the job, with the job's limits applied, or -EAGAIN. */
static int take_warm(struct sandbox *sb, enum trust trust,
		     const struct sandbox_limits *want, struct sandbox_container *c)
{
	if (!sb->pool || sandbox_pool_take(sb->pool, trust, c) < 0)
		return -EAGAIN;
	if (c->limits.memory_bytes == want->memory_bytes && c->limits.nano_cpus == want->nano_cpus &&
	    c->limits.pids == want->pids)
		return 0;
	/* Scaled limits: applied to the running container. */
	return sandbox_container_update(sb->containers, trust, want, c) < 0 ? -EAGAIN : 0;
}

/* What the end of a run reads, and whether the script's stage is over. */
struct run_end {
	struct sandbox_usage *usage;
	bool script_marked;
};

/* The script has ended (the bootstrap waits for stdin to close, or the
 * init has exited): the cgroup's counters, before Docker removes it. */
static void sample_at_end(void *arg)
{
	struct run_end *e = arg;
	if (!e->script_marked) {
		stagetime_mark(STAGE_SCRIPT);
		e->script_marked = true;
	}
	sandbox_usage_end(e->usage);
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
	const struct sandbox_pip *pip = sandbox_net_pip(sb->net);
	bool deps = job->n_dependencies > 0;
	bool network = !mode->no_network && sandbox_trust_has_network(sb, job->trust);
	/* A level with network runs in the pip image: it has pip and the
	 * whole standard library (http.client, ssl) that network code needs. */
	struct sandbox_container_spec spec = {
		.image = mode->image ? mode->image : (deps || network ? pip->image : NULL),
		.program = mode->program,
		.network = network,
		.deps_tmpfs_bytes = deps ? pip->install_size : 0,
	};
	_cleanup_free_ char *deps_spec = NULL;
	struct sandbox_container c = { 0 };
	struct docker_container_state st = { 0 };
	struct sandbox_usage usage = { 0 };
	struct run_end run_end = { &usage, false };
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
	sandbox_containers_remove_orphans(sb->containers);
	sandbox_trust_limits(sb->trust, job->trust, &job->metrics, &want);
	if (want.timeout_ms < mode->min_timeout_ms)
		want.timeout_ms = mode->min_timeout_ms;
	out->limits = want;
	out->runtime = xstrdup(sandbox_trust_runtime(sb->trust, job->trust));
	out->image = xstrdup(spec.image ? spec.image : sb->image);
	out->image_id = xstrdup(spec.image && pip->image_id ? pip->image_id : sb->image_id);
	out->docker_version = xstrdup(sb->docker_version);
	out->cgroup_version = sb->cgroup_version;
	sandbox_demux_init(&demux, (size_t)want.stdout_max, (size_t)want.stderr_max);

	if (deps && !(spec.network && pip->image_id)) {
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
	/* Warm containers are plain: default image, the level's network. */
	bool plain = !deps && !mode->image && !mode->program && !mode->no_network;
	sandbox_quiet_enter(&sb->quiet);
	if ((!plain || take_warm(sb, job->trust, &want, &c) < 0) &&
	    sandbox_container_prepare(sb->containers, job->trust, &want, job->job_id, &spec, &c,
				      &err) < 0) {
		fail_result(out, err);
		out->out = (struct sandbox_output){ demux.out.data, 0, 0, false };
		out->err = (struct sandbox_output){ demux.err.data, 0, 0, false };
		sandbox_quiet_leave(&sb->quiet);
		return -EIO;
	}
	stagetime_mark(STAGE_CONTAINER);
	out->limits = c.limits;
	out->limits.timeout_ms = want.timeout_ms;
	out->container_id = xstrdup(c.id);
	sandbox_exit_pump_watch(c.init, &watch);
	t0 = monoclock_ms();
	sandbox_end_marker(nonce, marker);
	sandbox_demux_expect_marker(&demux, marker);
	input = sandbox_job_input(job, deps_spec, nonce, &input_len);
	sandbox_usage_start(&usage, sb->docker, c.id, sb->cgroup_version);
	watch.ended = sample_at_end;
	watch.ended_arg = &run_end;
	/* Only the bootstrap waits for stdin to close before it exits. */
	const struct sandbox_attach_hold hold = { sample_at_end, &run_end };
	end = sandbox_attach_pump(c.stream, &demux, input, input_len, spec.program ? NULL : &hold,
				  &watch, t0 + want.timeout_ms, true, cancel, &io_error);
	/* The kernel says the init has ended and all output is in. Its OOM and
	 * pids counters were read at the end (while the bootstrap waited, or
	 * when the exit was first seen), before Docker removes the cgroup; if it
	 * was gone already, Docker says how the run ended, as without the
	 * kernel. */
	if (end == SANDBOX_ATTACH_EXITED) {
		if (sandbox_usage_stop(&usage)) {
			code = pidfd_exit_code(watch.status);
			st.oom_killed = usage.oom_kills > 0;
			have_state = true;
			out->ended_by_kernel = true;
			end = SANDBOX_ATTACH_EOF;
		} else {
			end = sandbox_attach_pump(c.stream, &demux, NULL, 0, NULL, NULL,
						  t0 + want.timeout_ms, true, cancel,
						  &io_error);
		}
	}
	/* A run without its end marker (killed, or a program of the agent's
	 * own) was the script's time up to here. */
	stagetime_mark(run_end.script_marked ? STAGE_END : STAGE_SCRIPT);
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
	stagetime_mark(STAGE_OUTPUT);
	/* Removed in the background: the result does not wait for it. */
	sandbox_quiet_leave(&sb->quiet);
	sandbox_container_release(sb->containers, &c);
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

