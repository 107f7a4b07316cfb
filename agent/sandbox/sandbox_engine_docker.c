/* The Docker engine behind the engine seam (sandbox_engine.h): one fresh
 * container per run, created, attached and started (or taken warm from the
 * pool), its output pumped from the attach stream (sandbox_attach.h), its
 * end learnt from the local kernel where the engine is this machine's
 * (sandbox_exit.h), its usage from its cgroup files or else the Engine
 * API's stats (sandbox_usage.h), and removed in the background
 * (sandbox_container.h). A remote engine (tcp:// with TLS) has no kernel or
 * cgroup of this machine's: its runs end by Docker's wait and their usage
 * comes from its stats, and the result says so. */
#include "sandbox_engine_docker.h"

#include <signal.h>
#include <string.h>

#include "docker.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "pidfd_exit.h"
#include "sandbox_attach.h"
#include "sandbox_container.h"
#include "sandbox_core.h"
#include "sandbox_exit.h"
#include "sandbox_limits.h"
#include "sandbox_net.h"
#include "sandbox_pool.h"
#include "sandbox_quiet.h"
#include "sandbox_seccomp.h"
#include "sandbox_trust.h"
#include "sandbox_uidcheck.h"
#include "sandbox_uids.h"
#include "sandbox_usage.h"
#include "stagetime.h"

struct docker_engine {
	struct sandbox_engine_info info;
	struct docker *docker;
	char *image, *image_id, *instance, *version;
	struct sandbox_uids *uids; /* each container's own uid */
	char *seccomp;             /* the profile every container gets */
	unsigned pool_want, workers;
	struct sandbox_trust *trust; /* borrowed */
	struct sandbox_exit *exit;
	struct sandbox_net *net;
	struct sandbox_containers *containers;
	struct sandbox_pool *pool;  /* NULL when the pool size is 0 */
	struct sandbox_quiet quiet; /* runs in flight */
};

struct sandbox_engine_run {
	struct sandbox_container c;
	struct sandbox_usage usage;
	struct sandbox_exit_watch watch;
	struct docker_container_state st;
	const uint8_t *input;
	size_t input_len;
	bool bootstrap, have_state;
	bool script_marked; /* the script's stage is over (stagetime) */
	bool counted;       /* the cgroup's counters were read at the script's end */
	int64_t code;
};

/* That the uid range is the agent's alone on this host, as the host sees
 * it: shifted by the subordinate range under dockerd's userns-remap. */
static int check_uid_range(struct docker_engine *e, const struct sandbox_options *opts,
			   bool userns, char **err)
{
	struct sandbox_uid_check c = { .first = opts->uid_first, .last = opts->uid_last,
				       .docker = e->docker };
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

/* A crash under runc meets the host kernel's core_pattern. */
static int check_core_dumps(struct docker_engine *e, char **err)
{
	char *msg = NULL;
	if (sandbox_trust_runc_level(e->trust) < 0)
		return 0;
	if (sandbox_core_check_host(&msg) < 0) {
		*err = msg;
		return -EPERM;
	}
	log_info("%s", msg);
	free(msg);
	return 0;
}

/* The host checks read this machine's accounts, processes, files and
 * core_pattern: a remote engine's host is not this one, and is left to
 * its own preparation (docs/SCALING.md). */
static int check_host(struct docker_engine *e, const struct sandbox_options *opts, bool userns,
		      char **err)
{
	int r;

	if (!docker_is_local(e->docker)) {
		log_info("engine %s is remote: its host's core_pattern and the uid range %u-%u "
			 "are not checked from here", docker_endpoint_name(e->docker),
			 opts->uid_first, opts->uid_last);
		return 0;
	}
	if ((r = check_core_dumps(e, err)) < 0)
		return r;
	/* After the leftovers: their processes are gone. */
	return opts->uid_check ? check_uid_range(e, opts, userns, err) : 0;
}

/* The warm pool's size per trust level (pool_size auto: from this
 * machine), and whether the uid range holds every container that keeps a
 * uid: each worker's run, up to two per worker queued for removal, the
 * warm ones. */
static int size_pool(struct docker_engine *e, const struct sandbox_options *opts, char **err)
{
	unsigned pool = e->pool_want;

	if (pool == SANDBOX_POOL_AUTO) {
		struct sandbox_machine m;
		sandbox_machine_probe(&m);
		pool = sandbox_pool_auto_size(m.cpus_nano, m.memory_available, e->workers);
		log_info("warm pool: %u container%s per trust level (pool_size: auto; %d CPUs, "
			 "%lld MB available, %u workers)", pool, pool == 1 ? "" : "s",
			 (int)((m.cpus_nano + 999999999) / 1000000000),
			 (long long)(m.memory_available >> 20), e->workers);
	}
	e->pool_want = pool;
	uint64_t uids = (uint64_t)opts->uid_last - opts->uid_first + 1;
	uint64_t in_flight = 3 * (uint64_t)e->workers + (uint64_t)TRUST_COUNT * pool;
	if (uids < in_flight) {
		*err = xasprintf("the sandbox's uid_range %u-%u has %llu uids, fewer than the %llu "
				 "containers that can be in flight (%u workers, each with up to two "
				 "runs waiting for removal, and %u warm per trust level): widen it "
				 "in config/sandbox.yaml", opts->uid_first, opts->uid_last,
				 (unsigned long long)uids, (unsigned long long)in_flight, e->workers,
				 pool);
		return -ERANGE;
	}
	return 0;
}

/* The parts that need Docker's answers (its version, cgroup version,
 * runtimes, image) and the leftovers of an earlier run gone. */
static int start_parts(struct docker_engine *e, const struct sandbox_options *opts, char **err)
{
	struct docker_version v = { 0 };
	struct docker_info info = { 0 };
	struct docker_image img = { 0 };
	bool allowlist = false, local = docker_is_local(e->docker);
	int r = -EIO;

	if (docker_ping(e->docker, err))
		return -EHOSTDOWN; /* the caller may wait for Docker to come */
	if (docker_version(e->docker, &v, err) || docker_info(e->docker, &info, err))
		goto out;
	e->version = xstrdup(v.version);
	e->info.cgroup_version = info.cgroup_version;
	/* A remote engine's containers are no processes of this kernel. */
	e->exit = sandbox_exit_start(local ? opts->exit_source : SANDBOX_EXIT_DOCKER, e->docker,
				     info.cgroup_version);
	for (int t = 0; t < TRUST_COUNT; t++) {
		const char *runtime = sandbox_trust_runtime(e->trust, (enum trust)t);
		if (!docker_info_has_runtime(&info, runtime)) {
			*err = xasprintf("the runtime '%s' of trust level %s is not known to Docker "
					 "%s at %s: install it and register it in dockerd's "
					 "daemon.json, or set another runtime for %s in "
					 "config/sandbox.yaml", runtime, trust_to_string((enum trust)t),
					 v.version, docker_endpoint_name(e->docker),
					 trust_to_string((enum trust)t));
			r = -ENOENT;
			goto out;
		}
		allowlist |= sandbox_trust_allowlist(e->trust, (enum trust)t);
	}
	if (docker_image_inspect(e->docker, e->image, &img, err))
		goto out;
	e->image_id = xstrdup(img.id);
	if (sandbox_containers_remove_leftovers(e->docker, e->instance, &e->info.leftovers, err) < 0)
		goto out;
	if ((r = check_host(e, opts, info.userns, err)) < 0)
		goto out;
	if (allowlist && !local) {
		/* The proxy listens on this machine's side of the network. */
		*err = xasprintf("network: allowlist needs the engine on this machine (its proxy "
				 "listens on the sandbox network's bridge), but the engine is %s: "
				 "use network: none for every level with a remote engine",
				 docker_endpoint_name(e->docker));
		r = -EINVAL;
		goto out;
	}
	r = sandbox_net_start(e->docker, e->instance, allowlist, &opts->network, &e->net, err);
out:
	docker_version_clear(&v);
	docker_info_clear(&info);
	docker_image_clear(&img);
	return r;
}

static void engine_close(void *ctx)
{
	struct docker_engine *e = ctx;

	if (!e)
		return;
	sandbox_quiet_release(&e->quiet);
	sandbox_pool_stop(e->pool);
	/* Drains the removals still queued, then the orphans. */
	sandbox_containers_free(e->containers);
	/* And whatever else carries this instance's label: a create that an
	 * agent killed with SIGKILL had sent Docker may finish after the next
	 * start swept its leftovers. */
	if (e->docker && e->instance && e->image_id) {
		size_t swept = 0;
		char *err = NULL;
		if (sandbox_containers_remove_leftovers(e->docker, e->instance, &swept, &err) < 0) {
			log_debug("no last sweep of instance '%s': %s", e->instance, err);
			free(err);
		}
	}
	sandbox_exit_stop(e->exit);
	sandbox_net_stop(e->net);
	sandbox_quiet_destroy(&e->quiet);
	docker_free(e->docker);
	free(e->image);
	free(e->image_id);
	sandbox_uids_free(e->uids);
	free(e->seccomp);
	free(e->instance);
	free(e->version);
	free((char *)e->info.endpoint);
	free(e);
}

static int engine_open(const struct sandbox_engine_setup *setup, void **ctx, char **err)
{
	const struct sandbox_options *opts = setup->opts;
	const struct sandbox_engine_options *eo = &opts->engine;
	struct docker_options dopts = {
		.socket_path = opts->socket_path, .host = eo->host,
		.tls = { eo->tls_ca, eo->tls_cert, eo->tls_key },
	};
	struct docker_engine *e = xcalloc(1, sizeof(*e));
	int r;

	*ctx = NULL;
	sandbox_quiet_init(&e->quiet);
	e->trust = setup->trust;
	e->image = xstrdup(opts->image ? opts->image : "mai-sandbox:latest");
	e->uids = sandbox_uids_new(opts->uid_first, opts->uid_last);
	e->seccomp = sandbox_seccomp_profile();
	e->instance = xstrdup(opts->instance_id ? opts->instance_id : "default");
	e->pool_want = opts->pool_size;
	e->workers = opts->workers ? opts->workers : 1;
	if (docker_open(&dopts, &e->docker, err) < 0) {
		engine_close(e);
		return -EINVAL;
	}
	if ((r = start_parts(e, opts, err)) < 0 || (r = size_pool(e, opts, err)) < 0) {
		engine_close(e);
		return r;
	}
	bool local = docker_is_local(e->docker);
	e->info = (struct sandbox_engine_info){
		.name = "docker",
		.endpoint = xstrdup(docker_endpoint_name(e->docker)),
		.caps = SANDBOX_ENGINE_CAN_POOL | SANDBOX_ENGINE_HAS_RUNTIME_CHOICE |
			(local ? SANDBOX_ENGINE_CAN_KERNEL_END | SANDBOX_ENGINE_CAN_CGROUP |
					 SANDBOX_ENGINE_CAN_ALLOWLIST
			       : 0),
		.version = e->version,
		.cgroup_version = e->info.cgroup_version,
		.image_id = e->image_id,
		.exit_source = sandbox_exit_source_get(e->exit),
		.leftovers = e->info.leftovers,
		.network = sandbox_net_name(e->net) != NULL,
		.proxy = "a tinyproxy of the agent's on this machine",
		.pip = sandbox_net_pip(e->net),
	};
	const struct sandbox_container_config cc = {
		.docker = e->docker, .image = e->image, .uids = e->uids,
		.seccomp_profile = e->seccomp,
		.instance = e->instance, .trust = e->trust, .exit = e->exit, .net = e->net,
		.quiet = &e->quiet, .workers = e->workers,
	};
	e->containers = sandbox_containers_new(&cc);
	*ctx = e;
	return 0;
}

/* After the self-test: no warm container exists before confinement is
 * known to hold. Warm containers are plain: default image, the level's
 * network (in the pip image, which network code needs). */
static void engine_warm_up(void *ctx)
{
	struct docker_engine *e = ctx;
	struct sandbox_container_spec warm[TRUST_COUNT];

	for (int t = 0; t < TRUST_COUNT; t++) {
		bool network = e->info.network && sandbox_trust_allowlist(e->trust, (enum trust)t);
		warm[t] = (struct sandbox_container_spec){
			.image = network ? sandbox_net_pip(e->net)->image : NULL, .network = network,
		};
	}
	e->pool = sandbox_pool_start(e->containers, e->trust, &e->quiet, warm, e->pool_want);
	e->info.pool_size = sandbox_pool_capacity(e->pool);
}

static const struct sandbox_engine_info *engine_info(void *ctx)
{
	return &((struct docker_engine *)ctx)->info;
}

static int engine_ping(void *ctx, char **err)
{
	return docker_ping(((struct docker_engine *)ctx)->docker, err) == DOCKER_OK ? 0 : -EHOSTDOWN;
}

/* A warm container for the job, with the job's limits applied, or -EAGAIN. */
static int take_warm(struct docker_engine *e, enum trust trust, const struct sandbox_limits *want,
		     struct sandbox_container *c)
{
	if (!e->pool || sandbox_pool_take(e->pool, trust, c) < 0)
		return -EAGAIN;
	if (c->limits.memory_bytes == want->memory_bytes && c->limits.nano_cpus == want->nano_cpus &&
	    c->limits.pids == want->pids)
		return 0;
	/* Scaled limits: applied to the running container. */
	return sandbox_container_update(e->containers, trust, want, c) < 0 ? -EAGAIN : 0;
}

/* The script has ended (the bootstrap waits for stdin to close, or the
 * init has exited, whichever is seen first): the script's stage is over,
 * and the cgroup's counters are read before Docker removes it, once: read
 * while the bootstrap held, they are not read again when its exit is seen
 * (sandbox_usage_stop() reads them a last time after the end). */
static void sample_at_end(void *arg)
{
	struct sandbox_engine_run *run = arg;

	if (!run->script_marked) {
		stagetime_mark(STAGE_SCRIPT);
		run->script_marked = true;
	}
	if (!run->counted)
		run->counted = sandbox_usage_end(&run->usage);
}

/* The bootstrap holds after its markers: the counters are read, then its
 * pause is ended at once where this machine sees its process (the close
 * of stdin that follows ends it everywhere else). */
static bool release_at_end(void *arg)
{
	struct sandbox_engine_run *run = arg;

	sample_at_end(run);
	return sandbox_exit_release(run->c.init, &run->watch);
}

static int engine_start(void *ctx, const struct sandbox_engine_spec *spec,
			struct sandbox_engine_run **out, struct sandbox_engine_started *started,
			char **err)
{
	struct docker_engine *e = ctx;
	struct sandbox_engine_run *run = xcalloc(1, sizeof(*run));
	const struct sandbox_container_spec cs = {
		.image = spec->image, .program = spec->bootstrap ? NULL : spec->program,
		.network = spec->network, .deps_tmpfs_bytes = spec->deps_tmpfs_bytes,
	};

	*out = NULL;
	sandbox_quiet_enter(&e->quiet);
	if ((!spec->warm_ok || take_warm(e, spec->trust, &spec->limits, &run->c) < 0) &&
	    sandbox_container_prepare(e->containers, spec->trust, &spec->limits, spec->job_label,
				      &cs, &run->c, err) < 0) {
		sandbox_quiet_leave(&e->quiet);
		free(run);
		return -EIO;
	}
	run->input = spec->input;
	run->input_len = spec->input_len;
	run->bootstrap = spec->bootstrap;
	run->code = -1;
	run->watch.fd = -1;
	started->limits = run->c.limits;
	started->id = xstrdup(run->c.id);
	started->uid = run->c.uid;
	/* Passed to runsc too, whose kernel the script meets instead. */
	started->seccomp = strcmp(sandbox_trust_runtime(e->trust, spec->trust), "runsc") == 0
				   ? "gvisor"
				   : SANDBOX_SECCOMP_NAME;
	sandbox_exit_pump_watch(run->c.init, &run->watch);
	sandbox_usage_start(&run->usage, e->docker, run->c.id, e->info.cgroup_version,
			    docker_is_local(e->docker));
	run->watch.ended = sample_at_end;
	run->watch.ended_arg = run;
	*out = run;
	return 0;
}

static enum sandbox_attach_end engine_wait(void *ctx, struct sandbox_engine_run *run,
					   const struct sandbox_engine_io *io, int *error)
{
	(void)ctx;
	/* Only the bootstrap waits for stdin to close before it exits. */
	const struct sandbox_attach_hold hold = { release_at_end, run };
	enum sandbox_attach_end end;

	end = sandbox_attach_pump(run->c.stream, io->demux, run->input, run->input_len,
				  run->bootstrap ? &hold : NULL, &run->watch, io->deadline_ms, true,
				  io->cancel, error);
	/* The kernel says the init has ended and all output is in. Its OOM and
	 * pids counters were read at the end (while the bootstrap waited, or
	 * when the exit was first seen), before Docker removes the cgroup; if it
	 * was gone already, Docker says how the run ended, as without the
	 * kernel. */
	if (end == SANDBOX_ATTACH_EXITED) {
		if (sandbox_usage_stop(&run->usage)) {
			run->code = pidfd_exit_code(run->watch.status);
			run->st.oom_killed = run->usage.oom_kills > 0;
			run->have_state = true;
			end = SANDBOX_ATTACH_EOF;
		} else {
			log_debug("container %.12s: its cgroup was gone before its counters were "
				  "read; Docker says how the run ended", run->c.id);
			end = sandbox_attach_pump(run->c.stream, io->demux, NULL, 0, NULL, NULL,
						  io->deadline_ms, true, io->cancel, error);
		}
	}
	/* A run without its end marker (killed, or a program of the agent's
	 * own) was the script's time up to here. */
	stagetime_mark(run->script_marked ? STAGE_END : STAGE_SCRIPT);
	/* Close the stream before a kill: while dockerd blocks writing output
	 * that nobody reads, it cannot finish the container's exit, and the kill
	 * call would wait for that. */
	docker_stream_close(run->c.stream);
	run->c.stream = NULL;
	return end;
}

static int engine_read(void *ctx, struct sandbox_engine_run *run, enum sandbox_attach_end *how,
		       const struct sandbox_engine_io *io, struct sandbox_engine_end *out)
{
	struct docker_engine *e = ctx;
	enum docker_error de = DOCKER_OK;
	bool killed = false, by_kernel = run->have_state;
	char *err = NULL;
	int64_t code = run->code;

	if (*how != SANDBOX_ATTACH_EOF) {
		if (docker_container_kill(e->docker, run->c.id, "KILL", &err)) {
			log_warnx("killing container %.12s failed: %s", run->c.id, err);
			free(err);
			err = NULL;
		}
		killed = true;
	}
	/* Usually the script has ended when its output does: then the state
	 * already holds the exit code, and no wait is needed. */
	if (!killed && !run->have_state) {
		de = docker_container_inspect(e->docker, run->c.id, &run->st, &err);
		if (de == DOCKER_OK && !run->st.running) {
			code = run->st.exit_code;
			run->have_state = true;
		} else {
			docker_container_state_clear(&run->st);
			free(err);
			err = NULL;
		}
	}
	/* The output may close before the process ends (a script that closes
	 * stdout and keeps running): the deadline still holds. */
	if (!run->have_state) {
		int64_t left = io->deadline_ms - monoclock_ms();
		de = docker_container_wait(e->docker, run->c.id,
					   killed ? 30000 : (left > 0 ? left : 1) + 50, &code, &err);
		if (de == DOCKER_ERR_TIMEOUT && !killed) {
			free(err);
			err = NULL;
			docker_container_kill(e->docker, run->c.id, "KILL", &err);
			free(err);
			err = NULL;
			killed = true;
			*how = SANDBOX_ATTACH_DEADLINE;
			de = docker_container_wait(e->docker, run->c.id, 30000, &code, &err);
		}
	}
	sandbox_usage_stop(&run->usage);
	if (de == DOCKER_OK && !run->have_state)
		de = docker_container_inspect(e->docker, run->c.id, &run->st, &err);
	*out = (struct sandbox_engine_end){
		.killed = killed, .code = code,
		.oom_killed = run->st.oom_killed,
		.peak_memory_bytes = run->usage.peak_memory_bytes, .cpu_ns = run->usage.cpu_ns,
		.pids_peak = run->usage.pids_peak, .pids_limit_hits = run->usage.pids_limit_hits,
		.oom_kills = run->usage.oom_kills,
		.ended_by_kernel = by_kernel,
		.usage_from_cgroup = run->usage.from_cgroup_files,
		.usage_source = run->usage.from_cgroup_files ? "cgroup" : "engine_stats",
		.err = de == DOCKER_OK ? NULL : err,
	};
	if (de == DOCKER_OK)
		free(err);
	docker_container_state_clear(&run->st);
	return de == DOCKER_OK ? 0 : -EIO;
}

static void engine_remove(void *ctx, struct sandbox_engine_run *run)
{
	struct docker_engine *e = ctx;

	/* The run's own hold (engine_start); the caller's may go on. */
	sandbox_quiet_leave(&e->quiet);
	/* Removed in the background: the result does not wait for it. */
	sandbox_container_release(e->containers, &run->c);
	free(run);
}

static void engine_find_pip(void *ctx)
{
	sandbox_net_find_pip(((struct docker_engine *)ctx)->net);
}

static void engine_limits_changed(void *ctx)
{
	struct docker_engine *e = ctx;

	/* No container made with the old limits serves a later job. */
	if (e->pool) {
		log_info("sandbox limits changed: replacing the warm pool's containers");
		sandbox_pool_flush(e->pool);
	}
}

static unsigned engine_warm_ready(void *ctx, enum trust t)
{
	return sandbox_pool_ready(((struct docker_engine *)ctx)->pool, t);
}

static void engine_wait_removed(void *ctx)
{
	sandbox_containers_wait_removed(((struct docker_engine *)ctx)->containers);
}

static void engine_hold_quiet(void *ctx, bool hold)
{
	struct docker_engine *e = ctx;

	if (hold)
		sandbox_quiet_enter(&e->quiet);
	else
		sandbox_quiet_leave(&e->quiet);
}

const struct sandbox_engine_ops sandbox_engine_docker = {
	.name = "docker",
	.caps = SANDBOX_ENGINE_CAN_POOL | SANDBOX_ENGINE_HAS_RUNTIME_CHOICE,
	.open = engine_open,
	.warm_up = engine_warm_up,
	.close = engine_close,
	.info = engine_info,
	.ping = engine_ping,
	.start = engine_start,
	.wait = engine_wait,
	.read = engine_read,
	.remove = engine_remove,
	.find_pip = engine_find_pip,
	.limits_changed = engine_limits_changed,
	.warm_ready = engine_warm_ready,
	.wait_removed = engine_wait_removed,
	.hold_quiet = engine_hold_quiet,
};
