/* Docker Swarm behind the engine seam: see swarm_engine.h and
 * docs/SCALING.md.
 *
 * A run is a replicated-job service of one task, created on a manager:
 *  - its input (what the bootstrap reads on stdin) is a Swarm config,
 *    mounted read-only at /mai-job; a small supervisor (swarm_supervisor.h)
 *    makes it the bootstrap's stdin, runs the program in a child, kills
 *    the run at its time limit on its node and, once the program has
 *    ended, writes the container's own cgroup counters (OOM kills, refused
 *    forks, peak memory, CPU) and whether it hit the limit as one last line
 *    to stderr;
 *  - read-only root, every capability dropped, a uid of its own, pids,
 *    memory and CPU limits, a size-capped tmpfs at /tmp, ulimits, Init, a
 *    json-file log capped in size;
 *  - a fresh internal overlay network of its own (no route out, no other
 *    run on it): a service without one would join the node's default
 *    bridge, which has a route out; at a network: allowlist level, its
 *    filtering proxy's service is on it too (swarm_proxy.h), made first;
 *  - constrained to ready nodes labelled for its trust level whose probe
 *    passed (swarm_nodes.h); what API 1.41 cannot set per service (the
 *    runtime, no-new-privileges, the seccomp profile) is the node's, and the
 *    probe proves it.
 * The agent polls the task until it ends (placement has probe_timeout; a
 * run that its node does not report ended within probe_timeout of its
 * deadline, counted from the task's start, is stopped), reads the output from the
 * service's logs, the verdict from the task, and removes the service, its
 * config and network. Everything carries the labels mai.agent,
 * mai.instance and mai.job, and is swept by label at open and close. */
#include "swarm_engine.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "docker_swarm.h"
#include "hash.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "sandbox_uids.h"
#include "stagetime.h"
#include "swarm_logs.h"
#include "swarm_nodes.h"
#include "swarm_proxy.h"
#include "swarm_stop.h"
#include "swarm_supervisor.h"

/* Swarm keeps configs of at most 500 KiB. */
#define SWARM_CONFIG_MAX (500 * 1024)
/* How often the output of a running task is read to hold it to its caps:
 * after a second, then twice as long each time, up to OUTPUT_POLL_MAX_MS
 * (each read is the whole log so far, fetched from the task's node through
 * the manager). */
#define OUTPUT_POLL_MS 1000
#define OUTPUT_POLL_MAX_MS 4000
/* The longest pause between two looks at a run's task. */
#define POLL_MAX_MS 250

struct swarm_engine {
	struct sandbox_engine_info info;
	struct docker *docker;
	char *image, *image_id, *instance, *tag, *version, *endpoint;
	/* Each run's own uid and gid (the same number) from the sandbox's
	 * uid_range, held until its service is removed. */
	struct sandbox_uids *uids;
	uint32_t uid_first, uid_last;
	char *runtime[TRUST_COUNT];
	int64_t placement_ms;
	struct swarm_nodes *nodes;
	/* The filtering proxies of allowlist levels; NULL: no such level. */
	struct swarm_proxies *proxies;
	atomic_uint seq;
	/* Later rounds of probes, for the audit log (the first is recorded by
	 * the caller at start); set once open has returned. */
	void (*probed)(void *arg, const char *name, const char *host, json_t *nodes);
	void *probed_arg;
	atomic_bool opened;
};

struct sandbox_engine_run {
	char *name, *config_id, *network_id, *service_id;
	struct swarm_proxy *proxy; /* an allowlist level's */
	enum trust trust;
	bool check_node; /* a job's run: its node must be a proven one of its level */
	bool have_uid;
	uint32_t uid;    /* its own uid and gid (have_uid) */
	int64_t log_max;
	struct docker_swarm_task task; /* the last seen */
	bool have_task, running;
	bool service_kept; /* stopped, its task not yet ended: left to the sweep */
	int64_t began_ms; /* the task first seen running (CLOCK_MONOTONIC) */
	char seen_state[16]; /* for the debug log of its changes */
	int64_t counters[SWARM_COUNTERS_N]; /* swarm_supervisor.h's, -1: none */
	bool have_counters; /* the supervisor's line was read */
	bool ended; /* the task ended (a deadline's end: its node killed it) */
	char *err;
};

static void engine_close(void *ctx)
{
	struct swarm_engine *e = ctx;

	if (!e)
		return;
	if (e->nodes)
		swarm_sweep(e->docker, e->instance, NULL);
	swarm_nodes_free(e->nodes);
	swarm_proxies_free(e->proxies);
	docker_free(e->docker);
	free(e->image);
	free(e->image_id);
	sandbox_uids_free(e->uids);
	free(e->instance);
	free(e->tag);
	free(e->version);
	free(e->endpoint);
	for (int t = 0; t < TRUST_COUNT; t++)
		free(e->runtime[t]);
	free(e);
}

static void *probe_start(void *arg, const char *node_id, enum trust t, char **err);
static int probe_finish(void *arg, void *probe, char **output, char **err);

static void probe_done(void *arg, json_t *nodes)
{
	struct swarm_engine *e = arg;

	if (atomic_load(&e->opened) && e->probed)
		e->probed(e->probed_arg, "swarm", e->endpoint, nodes);
}

static int engine_open(const struct sandbox_engine_setup *setup, void **ctx, char **err)
{
	const struct sandbox_options *opts = setup->opts;
	const struct sandbox_engine_options *eo = &opts->engine;
	struct docker_options dopts = {
		.socket_path = opts->socket_path, .host = eo->host,
		.tls = { eo->tls_ca, eo->tls_cert, eo->tls_key },
	};
	struct swarm_engine *e = xcalloc(1, sizeof(*e));
	struct docker_version v = { 0 };
	struct docker_info info = { 0 };
	struct docker_image img = { 0 };
	_cleanup_free_ char *node_id = NULL;
	bool gvisor[TRUST_COUNT], allowlist = false;
	char hex[HASH_SHA256_HEX_LEN + 1];
	int r = -EIO;

	*ctx = NULL;
	e->image = xstrdup(opts->image ? opts->image : "mai-sandbox:latest");
	e->uids = sandbox_uids_new(opts->uid_first, opts->uid_last);
	e->uid_first = opts->uid_first;
	e->uid_last = opts->uid_last;
	e->instance = xstrdup(opts->instance_id ? opts->instance_id : "default");
	/* Object names: short, from the instance (a path) and this process. */
	hash_sha256_hex(e->instance, strlen(e->instance), hex);
	e->tag = xasprintf("mai-%.8s-%d", hex, (int)getpid());
	e->placement_ms = eo->probe_timeout_ms > 0 ? eo->probe_timeout_ms : 60000;
	for (int t = 0; t < TRUST_COUNT; t++) {
		const char *rt = opts->trust[t].runtime ? opts->trust[t].runtime : "runc";
		e->runtime[t] = xstrdup(rt);
		gvisor[t] = strcmp(rt, "runsc") == 0;
		allowlist |= opts->trust[t].network_allowlist;
	}
	if (docker_open(&dopts, &e->docker, err) < 0) {
		r = -EINVAL;
		goto fail;
	}
	if (docker_ping(e->docker, err)) {
		r = -EHOSTDOWN;
		goto fail;
	}
	if (docker_version(e->docker, &v, err) || docker_info(e->docker, &info, err) ||
	    docker_swarm_manager(e->docker, &node_id, err) ||
	    docker_image_inspect(e->docker, e->image, &img, err))
		goto fail;
	e->version = xstrdup(v.version);
	e->image_id = xstrdup(img.id);
	e->endpoint = xstrdup(docker_endpoint_name(e->docker));
	const struct swarm_prober prober = { probe_start, probe_finish, probe_done, e };
	e->probed = eo->probed;
	e->probed_arg = eo->probed_arg;
	e->nodes = swarm_nodes_new(e->docker, eo->node_label_key ? eo->node_label_key : "mai.trust",
				   gvisor, &prober);
	swarm_sweep(e->docker, e->instance, &e->info.leftovers);
	/* After the sweep: it would take the egress network. */
	if (allowlist &&
	    (r = swarm_proxies_open(e->docker, e->instance, e->tag, &opts->network, &e->proxies,
				    err)) < 0)
		goto fail;
	e->info = (struct sandbox_engine_info){
		.name = "swarm", .endpoint = e->endpoint,
		.caps = SANDBOX_ENGINE_PROBES_NODES | (e->proxies ? SANDBOX_ENGINE_CAN_ALLOWLIST : 0),
		.version = e->version, .cgroup_version = info.cgroup_version,
		.image_id = e->image_id, .exit_source = SANDBOX_EXIT_DOCKER,
		.leftovers = e->info.leftovers, .network = e->proxies != NULL,
		.proxy = e->proxies ? swarm_proxies_describe(e->proxies) : NULL,
		.pip = e->proxies ? swarm_proxies_pip(e->proxies) : NULL,
	};
	/* Every node proves its settings now, in parallel; one that joins
	 * later does before its first run. A level without a proven node is
	 * not an error here: its runs say why they cannot be placed. */
	char **c = NULL, *why = NULL;
	if (swarm_nodes_place(e->nodes, TRUST_TRUSTED, true, true, &c, &why) < 0) {
		log_warnx("%s", why);
		free(why);
	}
	docker_strv_free(c);
	docker_version_clear(&v);
	docker_info_clear(&info);
	docker_image_clear(&img);
	atomic_store(&e->opened, true);
	*ctx = e;
	return 0;
fail:
	docker_version_clear(&v);
	docker_info_clear(&info);
	docker_image_clear(&img);
	engine_close(e);
	return r;
}

static const struct sandbox_engine_info *engine_info(void *ctx)
{
	return &((struct swarm_engine *)ctx)->info;
}

static int engine_ping(void *ctx, char **err)
{
	return docker_ping(((struct swarm_engine *)ctx)->docker, err) == DOCKER_OK ? 0 : -EHOSTDOWN;
}

static void run_free(struct sandbox_engine_run *run)
{
	free(run->name);
	free(run->config_id);
	free(run->network_id);
	free(run->service_id);
	free(run->err);
	docker_swarm_task_clear(&run->task);
	free(run);
}

/* Removes the run's service, config and network. The network goes once the
 * node has torn the task down: a few tries, else the next sweep. A service
 * kept after a stop its node has not yet carried out stays (removing it
 * would leave its task running, Docker 20.10), with its uid, config and
 * network: the sweep at the agent's stop or next start removes them. */
static void run_remove(struct swarm_engine *e, struct sandbox_engine_run *run)
{
	char *err = NULL;

	if (run->service_kept)
		return;
	bool gone = true;
	if (run->service_id && docker_swarm_remove(e->docker, DOCKER_SWARM_SERVICE, run->service_id,
						   &err) != DOCKER_OK) {
		/* Its task may still run somewhere: the uid stays taken. */
		log_warnx("removing service %s failed: %s", run->name, err);
		free(err);
		err = NULL;
		gone = false;
	}
	/* Its proxy runs as its uid too. */
	gone &= swarm_proxy_remove(e->proxies, run->proxy);
	run->proxy = NULL;
	if (gone && run->have_uid) {
		sandbox_uids_give(e->uids, run->uid);
		run->have_uid = false;
	}
	if (run->config_id && docker_swarm_remove(e->docker, DOCKER_SWARM_CONFIG, run->config_id,
						  &err) != DOCKER_OK) {
		log_debug("removing config %s failed: %s (swept later)", run->name, err);
		free(err);
		err = NULL;
	}
	for (int i = 0; run->network_id && i < 20; i++) {
		if (docker_swarm_remove(e->docker, DOCKER_SWARM_NETWORK, run->network_id, &err) ==
		    DOCKER_OK)
			break;
		free(err);
		err = NULL;
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* Creates the run's config, network and service; node_etc: a probe's, with
 * the node's /etc mounted read-only at SWARM_NODE_ETC. */
static int run_create(struct swarm_engine *e, struct sandbox_engine_run *run,
		      const struct sandbox_engine_spec *spec, const char *const *constraints,
		      bool node_etc, char **err)
{
	_cleanup_free_ char *label = xstrdup(spec->job_label ? spec->job_label : "");
	const struct docker_label labels[] = {
		{ "mai.agent", "1" }, { "mai.instance", e->instance }, { "mai.job", label },
	};
	_cleanup_free_ char *limit = xasprintf("%lld", (long long)spec->limits.timeout_ms);
	const char *cmd[] = { "python3", "-I", "-u", "-B", "-c", swarm_supervisor, limit, spec->program, NULL };
	const char *env[12] = { "HOME=/tmp", "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin" };
	char **proxy_env = NULL;
	int r;

	if (spec->input_len > SWARM_CONFIG_MAX) {
		*err = xasprintf("the script is too large for a Swarm config (%zu bytes with its "
				 "header; Swarm keeps at most %d)", spec->input_len,
				 SWARM_CONFIG_MAX);
		return -EFBIG;
	}
	if (sandbox_uids_take(e->uids, &run->uid) < 0) {
		*err = xasprintf("every uid of the sandbox's uid_range is in use by a run (%zu): "
				 "widen it in config/sandbox.yaml", sandbox_uids_in_use(e->uids));
		return -EAGAIN;
	}
	run->have_uid = true;
	_cleanup_free_ char *uid = xasprintf("%u", run->uid);
	_cleanup_free_ char *user = xasprintf("%u:%u", run->uid, run->uid);
	run->name = xasprintf("%s-%u", e->tag, atomic_fetch_add(&e->seq, 1));
	run->log_max = spec->limits.stdout_max + spec->limits.stderr_max + (64 << 10);
	if (docker_config_create(e->docker, run->name, labels, ARRAY_SIZE(labels), spec->input,
				 spec->input_len, &run->config_id, err) != DOCKER_OK ||
	    docker_overlay_create(e->docker, run->name, labels, ARRAY_SIZE(labels), true,
				  &run->network_id, err) != DOCKER_OK)
		return -EIO;
	/* An allowlist level's proxy, running before the run starts. */
	if (spec->network && e->proxies) {
		r = swarm_proxy_start(e->proxies, run->name, labels, ARRAY_SIZE(labels),
				      run->network_id, constraints, run->uid, e->placement_ms,
				      &run->proxy, &proxy_env, err);
		if (r < 0)
			return r;
		for (size_t i = 0, n = 3; proxy_env[i] && n + 1 < ARRAY_SIZE(env); i++)
			env[n++] = proxy_env[i];
	}
	const struct docker_service_config configs[] = {
		{ run->config_id, run->name, SWARM_JOB_FILE, uid, uid },
	};
	const struct docker_service_params p = {
		.name = run->name, .labels = labels, .n_labels = ARRAY_SIZE(labels),
		.image = spec->image ? spec->image : e->image, .cmd = cmd, .env = env,
		.user = user, .workdir = "/tmp",
		.memory_bytes = spec->limits.memory_bytes, .nano_cpus = spec->limits.nano_cpus,
		.pids_limit = spec->host_pids, .tmpfs_bytes = spec->limits.tmpfs_bytes,
		.deps_tmpfs_bytes = spec->deps_tmpfs_bytes,
		.nofile = spec->limits.nofile, .fsize_bytes = spec->limits.fsize_bytes,
		.core_bytes = spec->core_bytes,
		.sigpending = spec->limits.sigpending, .msgqueue_bytes = spec->limits.msgqueue_bytes,
		.memlock_bytes = spec->limits.memlock_bytes,
		.configs = configs, .n_configs = ARRAY_SIZE(configs),
		.networks = { run->network_id }, .constraints = constraints,
		.bind_source = node_etc ? "/etc" : NULL, .bind_target = SWARM_NODE_ETC,
		.log_max_bytes = run->log_max,
	};
	r = docker_service_create(e->docker, &p, &run->service_id, err) == DOCKER_OK ? 0 : -EIO;
	netproxy_env_free(proxy_env);
	return r;
}

static int engine_start(void *ctx, const struct sandbox_engine_spec *spec,
			struct sandbox_engine_run **out, struct sandbox_engine_started *started,
			char **err)
{
	struct swarm_engine *e = ctx;
	struct sandbox_engine_run *run = xcalloc(1, sizeof(*run));
	char **constraints = NULL;
	int r;

	*out = NULL;
	r = swarm_nodes_place(e->nodes, spec->trust, false, true, &constraints, err);
	if (r == 0)
		r = run_create(e, run, spec, (const char *const *)constraints, false, err);
	docker_strv_free(constraints);
	if (r < 0) {
		run_remove(e, run);
		run_free(run);
		return r;
	}
	run->trust = spec->trust;
	run->check_node = true;
	started->limits = spec->limits;
	started->id = xstrdup(run->service_id);
	/* The profile is the node's (daemon.json), not set per service. */
	started->uid = run->have_uid ? run->uid : 0;
	*out = run;
	return 0;
}

/* The last task of the run (the job has one). 0, or -EIO with *err. */
static int poll_task(struct swarm_engine *e, struct sandbox_engine_run *run, char **err)
{
	struct docker_swarm_task *tasks = NULL;
	size_t n = 0;

	if (docker_service_tasks(e->docker, run->service_id, &tasks, &n, err) != DOCKER_OK)
		return -EIO;
	if (n > 0) {
		struct docker_swarm_task *t = &tasks[n - 1];
		docker_swarm_task_clear(&run->task);
		run->task = *t;
		memset(t, 0, sizeof(*t));
		run->have_task = true;
	}
	docker_swarm_tasks_free(tasks, n);
	return 0;
}

/* What swarm_logs.h reads a run's output with. */
static struct swarm_logs logs_of(struct swarm_engine *e, struct sandbox_engine_run *run)
{
	return (struct swarm_logs){ .docker = e->docker, .service_id = run->service_id,
				    .name = run->name, .log_max = run->log_max,
				    .counters = run->counters, .have_counters = &run->have_counters };
}

static enum sandbox_attach_end engine_wait(void *ctx, struct sandbox_engine_run *run,
					   const struct sandbox_engine_io *io, int *error)
{
	struct swarm_engine *e = ctx;
	int64_t started = monoclock_ms(), deadline = 0, budget = io->deadline_ms - started;
	enum sandbox_attach_end end = SANDBOX_ATTACH_EOF;
	unsigned pause_ms = 20;
	int64_t last_node_check = started, next_output_check = 0, output_every = OUTPUT_POLL_MS;

	*error = 0;
	for (;;) {
		if (poll_task(e, run, &run->err) < 0) {
			/* The manager does not answer (restarting, a network
			 * outage): the task goes on on its node; ask again until
			 * the run's own time is up, as a local run waits for
			 * dockerd. */
			int64_t now = monoclock_ms();
			bool in_time = run->running ? now < deadline + e->placement_ms
						    : now - started < e->placement_ms;
			if (in_time && !(io->cancel && atomic_load(io->cancel))) {
				log_debug("service %s: %s; asking again", run->name, run->err);
				free(run->err);
				run->err = NULL;
				struct timespec ts = { 0, 250 * 1000000L };
				nanosleep(&ts, NULL);
				continue;
			}
			end = SANDBOX_ATTACH_ERROR;
			*error = -EIO;
			break;
		}
		const char *state = run->have_task ? run->task.state : "new";
		if (strcmp(state, run->seen_state) != 0) {
			log_debug("service %s: task %s after %lld ms", run->name, state,
				  (long long)(monoclock_ms() - started));
			snprintf(run->seen_state, sizeof(run->seen_state), "%s", state);
		}
		if (!run->running && (strcmp(state, "running") == 0 || swarm_task_ended(state))) {
			/* The deadline counts from the start, as on a local engine. */
			run->running = true;
			run->began_ms = monoclock_ms();
			deadline = run->began_ms + budget;
			/* Placed, its image and network ready, started. */
			stagetime_mark(STAGE_CONTAINER);
		}
		if (run->check_node && run->have_task && *run->task.node_id) {
			run->check_node = false;
			if (!swarm_nodes_proven(e->nodes, run->task.node_id, run->trust)) {
				_cleanup_free_ char *host = swarm_nodes_hostname(e->nodes,
										 run->task.node_id);
				free(run->err);
				run->err = xasprintf("the swarm placed the run on node %s, which has "
						     "not proven the settings of trust level %s (a "
						     "label changed since the agent last looked); "
						     "it was stopped there and runs again",
						     host, trust_to_string(run->trust));
				run->service_kept =
					swarm_stop_tasks(e->docker, &run->service_id, 1, SWARM_STOP_WAIT_MS, NULL) > 0;
				end = SANDBOX_ATTACH_ERROR;
				*error = -EPERM;
				break;
			}
		}
		if (swarm_task_ended(state)) {
			run->ended = true;
			break;
		}
		int64_t now = monoclock_ms();
		/* A node that went down takes its task with it; Swarm does not
		 * restart a job's task elsewhere, and the task's last state
		 * stays what the node last said. The run is lost: the daemon
		 * answers "error" and runs it again, on a node that is there. */
		if (run->have_task && *run->task.node_id && now - last_node_check >= 1000) {
			last_node_check = now;
			if (swarm_nodes_lost(e->nodes, run->task.node_id)) {
				_cleanup_free_ char *host = swarm_nodes_hostname(e->nodes,
										 run->task.node_id);
				free(run->err);
				run->err = xasprintf("node %s went down while the run was %s there; "
						     "it runs again on another node", host, state);
				end = SANDBOX_ATTACH_ERROR;
				*error = -EHOSTDOWN;
				break;
			}
		}
		/* At the deadline its node's supervisor kills the run; the
		 * agent stops it itself only when the node has not reported
		 * its end within placement_ms after that (too busy to say). */
		if (run->running && now >= deadline + e->placement_ms) {
			log_warnx("service %s: its node has not reported the end of a run %lld ms "
				  "after its deadline; the agent stops it", run->name,
				  (long long)e->placement_ms);
			end = SANDBOX_ATTACH_DEADLINE;
			break;
		}
		/* The output so far while the task runs: after OUTPUT_POLL_MS,
		 * then less and less often. */
		if (run->running && now >= next_output_check) {
			if (next_output_check) {
				if (swarm_logs_over_cap(logs_of(e, run), io->demux)) {
					end = SANDBOX_ATTACH_OUTPUT_LIMIT;
					break;
				}
				output_every = 2 * output_every < OUTPUT_POLL_MAX_MS ? 2 * output_every
									   : OUTPUT_POLL_MAX_MS;
			}
			next_output_check = monoclock_ms() + output_every;
		}
		if (!run->running && now - started >= e->placement_ms) {
			free(run->err);
			run->err = xasprintf("no node started the run within %lld ms (task %s%s%s)",
					     (long long)e->placement_ms, state,
					     run->have_task && *run->task.err ? ": " : "",
					     run->have_task ? run->task.err : "");
			end = SANDBOX_ATTACH_ERROR;
			*error = -ETIMEDOUT;
			break;
		}
		if (io->cancel && atomic_load(io->cancel)) {
			end = SANDBOX_ATTACH_CANCELLED;
			break;
		}
		/* Every 20 ms at first, then half as often again each time, at
		 * most every POLL_MAX_MS after about 0.6 s: each poll costs the
		 * manager a few milliseconds of CPU, which a swarm test's
		 * manager spent most of its CPU on at every 100 ms. */
		struct timespec ts = { 0, (long)pause_ms * 1000000L };
		nanosleep(&ts, NULL);
		pause_ms = pause_ms * 3 / 2 < POLL_MAX_MS ? pause_ms * 3 / 2 : POLL_MAX_MS;
	}
	/* The task's end as the manager reported it (or the deadline): the
	 * script's time; a run that never started was still being placed. */
	stagetime_mark(run->running ? STAGE_SCRIPT : STAGE_CONTAINER);
	/* The output so far, whatever the end (a removed service has no logs),
	 * but for a run that failed: its node may not answer. */
	char *err = NULL;
	if (run->service_id && end != SANDBOX_ATTACH_ERROR &&
	    swarm_logs_read_all(logs_of(e, run), io->demux, io->cancel, &err) < 0) {
		free(run->err);
		run->err = err;
		err = NULL;
		end = SANDBOX_ATTACH_ERROR;
		*error = -EPROTO;
	}
	free(err);
	stagetime_mark(STAGE_OUTPUT);
	/* Killed by its node's supervisor at the time limit. */
	if (end == SANDBOX_ATTACH_EOF && run->have_counters &&
	    run->counters[SWARM_TIMED_OUT] > 0 && run->task.has_exit &&
	    run->task.exit_code == 128 + 9)
		end = SANDBOX_ATTACH_DEADLINE;
	if (end == SANDBOX_ATTACH_EOF && sandbox_demux_over_limit(io->demux))
		end = SANDBOX_ATTACH_OUTPUT_LIMIT;
	return end;
}

/* A counter of the supervisor's line, -1 (no such file) read as 0. */
static int64_t nonneg(int64_t v)
{
	return v > 0 ? v : 0;
}

static int engine_read(void *ctx, struct sandbox_engine_run *run, enum sandbox_attach_end *how,
		       const struct sandbox_engine_io *io, struct sandbox_engine_end *out)
{
	struct swarm_engine *e = ctx;
	(void)io;

	memset(out, 0, sizeof(*out));
	out->began_ms = run->began_ms;
	if (run->have_task && *run->task.node_id)
		out->node = swarm_nodes_hostname(e->nodes, run->task.node_id);
	if (*how == SANDBOX_ATTACH_ERROR && run->err) {
		out->err = run->err;
		run->err = NULL;
		return -EIO;
	}
	/* A deadline, a cap or a stop: the task is stopped (SIGKILL) unless it
	 * has ended (its node killed it at the deadline), then the service
	 * goes. */
	if (*how != SANDBOX_ATTACH_EOF) {
		if (!run->ended)
			run->service_kept = swarm_stop_tasks(e->docker, &run->service_id, 1,
							     SWARM_STOP_WAIT_MS, NULL) > 0;
		out->killed = true;
		out->code = 137;
	} else {
		const char *state = run->task.state;
		if (strcmp(state, "complete") == 0) {
			out->code = 0;
		} else if (strcmp(state, "failed") == 0 && run->task.has_exit) {
			out->code = run->task.exit_code;
		} else {
			/* Rejected by the node (an image it lacks, a mount it
			 * refused), or lost with its node. */
			out->err = xasprintf("the task on %s ended %s: %s%s%s",
					     out->node ? out->node : "no node", state,
					     *run->task.err ? run->task.err : "no reason given",
					     *run->task.message ? "; " : "", run->task.message);
			return -EIO;
		}
	}
	/* Without the counters (gVisor shows the run no cgroup files), a
	 * SIGKILL that the agent did not send is the kernel's at the memory
	 * limit, as a local run under gVisor is read (sandbox.c); a script
	 * that kills itself with SIGKILL reads so too. */
	bool cgroup = run->have_counters && run->counters[0] >= 0;
	if (!cgroup && !out->killed && out->code == 128 + 9)
		out->oom_killed = true;
	if (cgroup) {
		out->oom_kills = run->counters[0];
		out->oom_killed = run->counters[0] > 0;
		out->pids_limit_hits = nonneg(run->counters[1]);
		out->peak_memory_bytes = nonneg(run->counters[2]);
		out->cpu_ns = nonneg(run->counters[3]);
		out->pids_peak = nonneg(run->counters[4]);
		out->usage_source = "task";
	}
	return 0;
}

static void engine_remove(void *ctx, struct sandbox_engine_run *run)
{
	run_remove(ctx, run);
	run_free(run);
}

/* ---- probes: a job on one node, its stdout checked by swarm_nodes.c ---- */

struct probe {
	struct sandbox_engine_run *run;
	struct sandbox_demux demux;
	uint8_t *input;
	size_t input_len;
	int64_t timeout_ms;
};

static void *probe_start(void *arg, const char *node_id, enum trust t, char **err)
{
	struct swarm_engine *e = arg;
	struct probe *p = xcalloc(1, sizeof(*p));
	_cleanup_free_ char *script = swarm_nodes_probe_script(strcmp(e->runtime[t], "runsc") == 0,
							       e->uid_first, e->uid_last);
	_cleanup_free_ char *level = xasprintf("node.id==%s", node_id);
	const char *constraints[] = { level, NULL };
	/* The probe runs as the level's runs do, with small limits. */
	struct sandbox_engine_spec spec = {
		.trust = t, .job_label = "probe", .program = script,
		.limits = { .memory_bytes = 64 << 20, .nano_cpus = 500000000, .pids = 32,
			    .tmpfs_bytes = 1 << 20, .nofile = 64, .fsize_bytes = 1 << 20,
			    .timeout_ms = e->placement_ms, .stdout_max = 16 << 10,
			    .stderr_max = 16 << 10 },
		.host_pids = 32 + (strcmp(e->runtime[t], "runsc") == 0 ? SANDBOX_RUNSC_PIDS_ALLOWANCE : 0),
		.core_bytes = 1, /* as a run's (the policy's SANDBOX_CORE_LIMIT) */
		.input = (const uint8_t *)"\n", .input_len = 1,
	};

	p->run = xcalloc(1, sizeof(*p->run));
	p->timeout_ms = e->placement_ms;
	sandbox_demux_init(&p->demux, 16 << 10, 16 << 10);
	if (run_create(e, p->run, &spec, constraints, true, err) < 0) {
		run_remove(e, p->run);
		run_free(p->run);
		sandbox_demux_clear(&p->demux);
		free(p);
		return NULL;
	}
	return p;
}

static int probe_finish(void *arg, void *probe, char **output, char **err)
{
	struct swarm_engine *e = arg;
	struct probe *p = probe;
	const struct sandbox_engine_io io = {
		.demux = &p->demux, .deadline_ms = monoclock_ms() + p->timeout_ms,
	};
	struct sandbox_engine_end end = { 0 };
	enum sandbox_attach_end how;
	int error = 0, r;

	how = engine_wait(e, p->run, &io, &error);
	r = engine_read(e, p->run, &how, &io, &end);
	if (r == 0 && how != SANDBOX_ATTACH_EOF) {
		end.err = xasprintf("it did not end in time (%s)", sandbox_attach_end_to_string(how));
		r = -ETIMEDOUT;
	} else if (r == 0 && end.code != 0) {
		end.err = xasprintf("it exited with status %lld: %.200s", (long long)end.code,
				    p->demux.err.data);
		r = -EIO;
	}
	if (r == 0) {
		*output = xstrdup(p->demux.out.data);
	} else {
		/* One line: it goes into the log, status and the audit record. */
		for (char *c = end.err; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		*err = end.err;
		end.err = NULL;
	}
	sandbox_engine_end_clear(&end);
	engine_remove(e, p->run);
	sandbox_demux_clear(&p->demux);
	free(p);
	return r;
}

static json_t *engine_nodes(void *ctx)
{
	return swarm_nodes_report(((struct swarm_engine *)ctx)->nodes);
}

const struct sandbox_engine_ops swarm_engine = {
	.name = "swarm",
	.caps = SANDBOX_ENGINE_PROBES_NODES,
	.open = engine_open,
	.close = engine_close,
	.info = engine_info,
	.ping = engine_ping,
	.start = engine_start,
	.wait = engine_wait,
	.read = engine_read,
	.remove = engine_remove,
	.nodes = engine_nodes,
};
