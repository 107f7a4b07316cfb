#include "sandbox_container.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "sandbox_bootstrap.h"
#include "sandbox_cgroup.h"
#include "sandbox_core.h"
#include "sandbox_exit.h"
#include "sandbox_net.h"
#include "sandbox_reap.h"
#include "sandbox_trust.h"
#include "sandbox_uids.h"

struct sandbox_containers {
	struct sandbox_container_config cfg;
	struct sandbox_reaper *reaper; /* removes released containers */
	/* Containers whose removal failed (Docker went away mid-run): removed
	 * before the next run, and at the end. Under orphans_lock. */
	pthread_mutex_t orphans_lock;
	char **orphans;
	size_t n_orphans;
};

/* The reaper's removal, as discard does it (a failure keeps an orphan). */
static void remove_released(void *arg, char *id)
{
	struct sandbox_container c = { .id = id };

	sandbox_container_discard(arg, &c);
}

struct sandbox_containers *sandbox_containers_new(const struct sandbox_container_config *cfg)
{
	struct sandbox_containers *ct = xcalloc(1, sizeof(*ct));

	ct->cfg = *cfg;
	pthread_mutex_init(&ct->orphans_lock, NULL);
	/* A backlog beyond what the workers leave behind is removed at once. */
	ct->reaper = sandbox_reaper_start(remove_released, ct, cfg->quiet,
					  2 * (cfg->workers ? cfg->workers : 1));
	return ct;
}

void sandbox_containers_free(struct sandbox_containers *ct)
{
	if (!ct)
		return;
	/* Drains the removals still queued; those that fail become orphans. */
	sandbox_reaper_stop(ct->reaper);
	sandbox_containers_remove_orphans(ct);
	for (size_t i = 0; i < ct->n_orphans; i++) {
		/* Found by label at the next start (remove_leftovers). */
		log_warnx("container %.12s is left in Docker: it could not be removed",
			  ct->orphans[i]);
		free(ct->orphans[i]);
	}
	free(ct->orphans);
	pthread_mutex_destroy(&ct->orphans_lock);
	free(ct);
}

int sandbox_containers_remove_leftovers(struct docker *d, const char *instance, size_t *removed,
					char **err)
{
	char **ids = NULL;
	size_t n = 0;

	*removed = 0;
	if (docker_container_list_by_label(d, "mai.instance", instance, &ids, &n, err))
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		char *e = NULL;
		if (docker_container_remove(d, ids[i], &e) == DOCKER_OK) {
			(*removed)++;
		} else {
			log_warnx("removing leftover container %.12s failed: %s", ids[i], e);
			free(e);
		}
	}
	if (n)
		log_info("removed %zu leftover sandbox container(s) of instance '%s'", *removed,
			 instance);
	docker_strv_free(ids);
	return 0;
}

/* The list is taken whole, so Docker is called without the lock; those
 * that still cannot be removed go back on it. */
void sandbox_containers_remove_orphans(struct sandbox_containers *ct)
{
	char **ids;
	size_t n, kept = 0;

	pthread_mutex_lock(&ct->orphans_lock);
	ids = ct->orphans;
	n = ct->n_orphans;
	ct->orphans = NULL;
	ct->n_orphans = 0;
	pthread_mutex_unlock(&ct->orphans_lock);
	for (size_t i = 0; i < n; i++) {
		char *err = NULL;
		if (docker_container_remove(ct->cfg.docker, ids[i], &err) == DOCKER_OK) {
			sandbox_uids_removed(ct->cfg.uids, ids[i]);
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
	pthread_mutex_lock(&ct->orphans_lock);
	ids = xrealloc(ids, (kept + ct->n_orphans) * sizeof(*ids));
	for (size_t i = 0; i < ct->n_orphans; i++)
		ids[kept + i] = ct->orphans[i];
	free(ct->orphans);
	ct->orphans = ids;
	ct->n_orphans += kept;
	pthread_mutex_unlock(&ct->orphans_lock);
}

void sandbox_containers_wait_removed(struct sandbox_containers *ct)
{
	sandbox_reaper_wait(ct->reaper);
}

/* Docker 20.10's masked paths (its list is replaced, not added to) and
 * /proc/key-users, which lists the host's uids that hold keys. */
static const char *const masked_paths[] = {
	"/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/key-users",
	"/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
	"/proc/scsi", "/sys/firmware", NULL,
};

int sandbox_container_prepare(struct sandbox_containers *ct, enum trust trust,
			      const struct sandbox_limits *limits, const char *job_label,
			      const struct sandbox_container_spec *spec,
			      struct sandbox_container *out, char **err)
{
	const struct sandbox_container_config *cfg = &ct->cfg;
	const char *cmd[] = { "python3", "-I", "-u", "-B", "-c",
			      spec->program ? spec->program : sandbox_bootstrap, NULL };
	/* The allowlist mode adds the proxy's variables (sandbox_net.h). */
	const char *env[16] = { "HOME=/tmp", "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin" };
	size_t n_env = 3;
	const struct docker_label labels[] = {
		{ "mai.agent", "1" },
		{ "mai.instance", cfg->instance },
		{ "mai.job", job_label ? job_label : "" },
	};
	const char *net_name = sandbox_net_name(cfg->net);
	bool network = spec->network && net_name;
	for (const char *const *v = network ? sandbox_net_env(cfg->net) : NULL;
	     v && *v && n_env + 1 < ARRAY_SIZE(env); v++)
		env[n_env++] = *v;
	uint32_t uid;
	char user[32];
	if (sandbox_uids_take(cfg->uids, &uid) < 0) {
		*err = xasprintf("every uid of the sandbox's uid_range is in use by a container in "
				 "flight (%zu); widen uid_range in config/sandbox.yaml",
				 sandbox_uids_in_use(cfg->uids));
		return -EIO;
	}
	/* Its own uid and gid: no other run, no host account shares them. */
	snprintf(user, sizeof(user), "%u:%u", uid, uid);
	struct docker_create_params p = {
		.image = spec->image ? spec->image : cfg->image, .cmd = cmd, .env = env,
		.user = user, .workdir = "/tmp",
		.labels = labels, .n_labels = ARRAY_SIZE(labels), .open_stdin = true,
		.memory_bytes = limits->memory_bytes, .nano_cpus = limits->nano_cpus,
		.pids_limit = sandbox_trust_host_pids(cfg->trust, trust, limits->pids),
		.tmpfs_bytes = limits->tmpfs_bytes,
		.nofile = limits->nofile, .fsize_bytes = limits->fsize_bytes,
		.sigpending = limits->sigpending, .msgqueue_bytes = limits->msgqueue_bytes,
		.memlock_bytes = limits->memlock_bytes, .core_bytes = SANDBOX_CORE_LIMIT,
		.seccomp_profile = cfg->seccomp_profile, .masked_paths = masked_paths,
		.runtime = sandbox_trust_runtime(cfg->trust, trust),
		.network = network ? net_name : NULL,
		.deps_tmpfs_bytes = spec->deps_tmpfs_bytes,
	};

	memset(out, 0, sizeof(*out));
	out->limits = *limits;
	if (docker_container_create(cfg->docker, &p, &out->id, err)) {
		sandbox_uids_give(cfg->uids, uid);
		return -EIO;
	}
	sandbox_uids_bind(cfg->uids, uid, out->id);
	out->uid = uid;
	/* Attach before start: not a byte of output is missed. */
	if (docker_container_attach(cfg->docker, out->id, &out->stream, err) ||
	    docker_container_start(cfg->docker, out->id, err)) {
		sandbox_container_discard(ct, out);
		return -EIO;
	}
	/* gVisor's init is the Sentry's task, not a host process. */
	if (!sandbox_trust_is_gvisor(cfg->trust, trust))
		out->init = sandbox_exit_watch(cfg->exit, out->id);
	return 0;
}

bool sandbox_container_wait_idle(const struct sandbox_container *c, int64_t max_ms)
{
	int64_t until = monoclock_ms() + max_ms;
	pid_t bootstrap = -ESRCH;

	if (!c->init)
		return false;
	do {
		if (bootstrap <= 0)
			bootstrap = sandbox_proc_first_child(sandbox_exit_init_pid(c->init));
		if (bootstrap > 0 && sandbox_proc_reads_stdin(bootstrap))
			return true;
		usleep(1000);
	} while (monoclock_ms() < until);
	return false;
}

int sandbox_container_update(struct sandbox_containers *ct, enum trust trust,
			     const struct sandbox_limits *want, struct sandbox_container *c)
{
	char *err = NULL;

	/* Memory, CPUs and pids can change on a running container. */
	if (docker_container_update(ct->cfg.docker, c->id, want->memory_bytes, want->nano_cpus,
				    sandbox_trust_host_pids(ct->cfg.trust, trust, want->pids),
				    &err) != DOCKER_OK) {
		log_warnx("updating the limits of pooled container %.12s failed (%s); using a cold "
			  "one", c->id, err);
		free(err);
		sandbox_container_discard(ct, c);
		return -EIO;
	}
	c->limits.memory_bytes = want->memory_bytes;
	c->limits.nano_cpus = want->nano_cpus;
	c->limits.pids = want->pids;
	return 0;
}

void sandbox_container_discard(struct sandbox_containers *ct, struct sandbox_container *c)
{
	char *err = NULL;

	if (c->stream)
		docker_stream_close(c->stream);
	sandbox_exit_unwatch(ct->cfg.exit, c->init);
	if (c->id && docker_container_remove(ct->cfg.docker, c->id, &err)) {
		log_warnx("removing container %.12s failed: %s; trying again before the next run",
			  c->id, err);
		free(err);
		pthread_mutex_lock(&ct->orphans_lock);
		ct->orphans = xrealloc(ct->orphans, (ct->n_orphans + 1) * sizeof(*ct->orphans));
		ct->orphans[ct->n_orphans++] = c->id;
		pthread_mutex_unlock(&ct->orphans_lock);
		c->id = NULL;
	} else if (c->id) {
		sandbox_uids_removed(ct->cfg.uids, c->id);
	}
	free(c->id);
	memset(c, 0, sizeof(*c));
}

void sandbox_container_release(struct sandbox_containers *ct, struct sandbox_container *c)
{
	if (c->id && sandbox_reaper_add(ct->reaper, c->id) == 0)
		c->id = NULL;
	sandbox_container_discard(ct, c); /* in place when the reaper has no thread */
}
