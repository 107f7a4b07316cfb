#include "swarm_proxy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "swarm_stop.h"

/* Where the configs go in the proxy's container. */
#define PROXY_DIR "/mai-proxy"
/* The proxy's own limits: tinyproxy holds a thread and two descriptors
 * per connection (MaxClients 64 in its configuration). */
#define PROXY_MEMORY (64LL << 20)
#define PROXY_NANO_CPUS 500000000LL
#define PROXY_PIDS 96
#define PROXY_NOFILE 512
#define PROXY_LOG_MAX (1LL << 20)

struct swarm_proxies {
	struct docker *docker; /* borrowed */
	char **hosts;
	size_t n_hosts;
	int port;
	char *egress, *egress_id, *log_path, *image, *describe;
	struct sandbox_pip *pip;
};

struct swarm_proxy {
	char *name, *service_id;
	char *config_ids[2];
};

void swarm_proxies_free(struct swarm_proxies *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n_hosts; i++)
		free(ps->hosts[i]);
	free(ps->hosts);
	free(ps->egress);
	free(ps->egress_id);
	free(ps->log_path);
	free(ps->image);
	free(ps->describe);
	sandbox_pip_free(ps->pip);
	free(ps);
}

/* Its configuration for a client subnet, to check o before any run. */
static int render(const struct swarm_proxies *ps, const char *subnet, char **conf, char **filter,
		  char **err)
{
	const struct netproxy_options po = {
		.dir = PROXY_DIR, .allowed_hosts = (const char *const *)ps->hosts,
		.n_hosts = ps->n_hosts, .listen = "0.0.0.0", .port = ps->port,
		.client_subnet = subnet,
	};

	return netproxy_render(&po, conf, filter, err);
}

static int need_image(struct docker *d, const char *image, const char *what, char **id,
		      char **err)
{
	struct docker_image img = { 0 };
	char *e = NULL;

	if (docker_image_inspect(d, image, &img, &e) != DOCKER_OK) {
		*err = xasprintf("%s; network: allowlist on Swarm needs %s on every node of its "
				 "levels: packaging/sandbox-image/build.sh %s with DOCKER_SOCKET "
				 "at each node (docs/SCALING.md)", e, image, what);
		free(e);
		return -ENOENT;
	}
	if (id)
		*id = xstrdup(img.id);
	docker_image_clear(&img);
	return 0;
}

int swarm_proxies_open(struct docker *d, const char *instance, const char *tag,
		       const struct sandbox_network_options *o, struct swarm_proxies **out,
		       char **err)
{
	struct swarm_proxies *ps = xcalloc(1, sizeof(*ps));
	const struct docker_label labels[] = {
		{ "mai.agent", "1" }, { "mai.instance", instance }, { "mai.role", "egress" },
	};
	_cleanup_free_ char *conf = NULL, *filter = NULL, *pip_id = NULL;
	int r;

	*out = NULL;
	ps->docker = d;
	ps->port = o->proxy_port;
	ps->n_hosts = o->n_hosts;
	ps->hosts = xcalloc(o->n_hosts + 1, sizeof(char *));
	for (size_t i = 0; i < o->n_hosts; i++)
		ps->hosts[i] = xstrdup(o->allowed_hosts[i]);
	ps->pip = sandbox_pip_new(o);
	ps->log_path = xasprintf("%s/proxy/tinyproxy.log", o->state_dir ? o->state_dir : ".");
	ps->egress = xasprintf("%s-egress", tag);
	ps->image = xstrdup(o->proxy_image ? o->proxy_image : SWARM_PROXY_IMAGE);
	ps->describe = xasprintf("a proxy service of each run's own (%s)", ps->image);
	if ((r = render(ps, "10.0.0.0/24", &conf, &filter, err)) < 0 ||
	    (r = need_image(d, ps->image, "--variant proxy", NULL, err)) < 0 ||
	    (r = need_image(d, ps->pip->image, "--variant pip", &pip_id, err)) < 0)
		goto fail;
	sandbox_pip_set_image_id(ps->pip, pip_id);
	if (docker_overlay_create(d, ps->egress, labels, ARRAY_SIZE(labels), false, &ps->egress_id,
				  err) != DOCKER_OK) {
		r = -EIO;
		goto fail;
	}
	log_info("network: allowlist on Swarm: each run of an allowlist level gets a proxy "
		 "service (%s, %zu allowed host(s), port %d) on its own network and on %s",
		 ps->image, ps->n_hosts, ps->port, ps->egress);
	*out = ps;
	return 0;
fail:
	swarm_proxies_free(ps);
	return r;
}

const struct sandbox_pip *swarm_proxies_pip(const struct swarm_proxies *ps) { return ps->pip; }

const char *swarm_proxies_describe(const struct swarm_proxies *ps) { return ps->describe; }

/* Until the proxy's task runs: 0, or -errno with *err. */
static int wait_running(struct swarm_proxies *ps, struct swarm_proxy *p, int64_t wait_ms,
			char **err)
{
	int64_t until = monoclock_ms() + wait_ms;
	unsigned pause_ms = 20;

	for (;;) {
		struct docker_swarm_task *t = NULL;
		size_t n = 0;
		char *e = NULL;
		int r = 1;

		if (docker_service_tasks(ps->docker, p->service_id, &t, &n, &e) != DOCKER_OK) {
			log_debug("proxy %s: its task: %s; asking again", p->name, e);
			free(e);
		} else if (n > 0 && strcmp(t[n - 1].state, "running") == 0) {
			r = 0;
		} else if (n > 0 && swarm_task_ended(t[n - 1].state)) {
			*err = xasprintf("its filtering proxy's task ended %s before the run could "
					 "start: %s (does every node of the level have %s?)",
					 t[n - 1].state,
					 *t[n - 1].err ? t[n - 1].err : "no reason given",
					 ps->image);
			r = -EIO;
		}
		docker_swarm_tasks_free(t, n);
		if (r <= 0)
			return r;
		if (monoclock_ms() >= until) {
			*err = xasprintf("its filtering proxy did not start within %lld ms",
					 (long long)wait_ms);
			return -ETIMEDOUT;
		}
		struct timespec ts = { 0, (long)pause_ms * 1000000L };
		nanosleep(&ts, NULL);
		pause_ms = pause_ms * 3 / 2 < 250 ? pause_ms * 3 / 2 : 250;
	}
}

int swarm_proxy_start(struct swarm_proxies *ps, const char *name,
		      const struct docker_label *labels, size_t n_labels,
		      const char *network_id, const char *const *constraints, uint32_t uid,
		      int64_t wait_ms, struct swarm_proxy **out, char ***env, char **err)
{
	struct swarm_proxy *p = xcalloc(1, sizeof(*p));
	struct docker_label plabels[8];
	struct docker_network net = { 0 };
	_cleanup_free_ char *conf = NULL, *filter = NULL, *url = NULL;
	_cleanup_free_ char *conf_name = NULL, *filter_name = NULL;
	_cleanup_free_ char *user = xasprintf("%u:%u", uid, uid), *id = xasprintf("%u", uid);
	size_t n = 0;
	int r;

	*out = p;
	*env = NULL;
	p->name = xasprintf("%s-proxy", name);
	for (size_t i = 0; i < n_labels && n + 1 < ARRAY_SIZE(plabels); i++)
		plabels[n++] = labels[i];
	plabels[n++] = (struct docker_label){ "mai.role", "proxy" };
	/* Clients from the run's own network only. */
	if (docker_network_inspect(ps->docker, network_id, &net, err) != DOCKER_OK)
		return -EIO;
	if (!net.subnet || !*net.subnet) {
		*err = xasprintf("the run's network %s has no subnet for its proxy's Allow",
				 net.name);
		docker_network_clear(&net);
		return -EIO;
	}
	r = render(ps, net.subnet, &conf, &filter, err);
	docker_network_clear(&net);
	if (r < 0)
		return r;
	conf_name = xasprintf("%s-conf", p->name);
	filter_name = xasprintf("%s-filter", p->name);
	if (docker_config_create(ps->docker, conf_name, plabels, n, conf, strlen(conf),
				 &p->config_ids[0], err) != DOCKER_OK ||
	    docker_config_create(ps->docker, filter_name, plabels, n, filter, strlen(filter),
				 &p->config_ids[1], err) != DOCKER_OK)
		return -EIO;
	const struct docker_service_config configs[] = {
		{ p->config_ids[0], conf_name, PROXY_DIR "/tinyproxy.conf", id, id },
		{ p->config_ids[1], filter_name, PROXY_DIR "/filter", id, id },
	};
	const char *cmd[] = { "tinyproxy", "-d", "-c", PROXY_DIR "/tinyproxy.conf", NULL };
	const struct docker_service_params sp = {
		.name = p->name, .labels = plabels, .n_labels = n, .image = ps->image,
		.cmd = cmd, .user = user, .workdir = "/", .memory_bytes = PROXY_MEMORY,
		.nano_cpus = PROXY_NANO_CPUS, .pids_limit = PROXY_PIDS, .tmpfs_bytes = 1 << 20,
		.nofile = PROXY_NOFILE, .fsize_bytes = 1 << 20, .core_bytes = 1,
		.configs = configs, .n_configs = ARRAY_SIZE(configs),
		.networks = { network_id, ps->egress_id }, .constraints = constraints,
		.log_max_bytes = PROXY_LOG_MAX,
	};
	if (docker_service_create(ps->docker, &sp, &p->service_id, err) != DOCKER_OK)
		return -EIO;
	if ((r = wait_running(ps, p, wait_ms, err)) < 0)
		return r;
	/* The run finds it by its service's name on their network (DNS
	 * round robin: the task's own address). */
	url = xasprintf("http://%s:%d", p->name, ps->port);
	*env = netproxy_env(url, ps->pip->index_url);
	return 0;
}

/* The proxy's log lines, each after the run's name, appended to the log
 * the local proxy writes too (the agent's alone: it names what every
 * user's runs fetched). */
static void save_log(struct swarm_proxies *ps, struct swarm_proxy *p)
{
	_cleanup_free_ char *buf = NULL, *text = NULL, *dir = NULL;
	size_t len = 0, off = 0, tlen = 0;
	struct docker_log_frame frame;
	char *err = NULL;
	FILE *f;
	int r;

	if (docker_service_logs(ps->docker, p->service_id, (size_t)PROXY_LOG_MAX * 2, &buf, &len,
				&err) != DOCKER_OK) {
		log_warnx("the log of the filtering proxy %s is lost: %s", p->name, err);
		free(err);
		return;
	}
	f = open_memstream(&text, &tlen);
	if (!f)
		abort();
	/* Docker's frames; one of the engine's own (stream 3) says what part
	 * of the log the swarm could not fetch. */
	while ((r = docker_swarm_codec_log_frame(buf, len, &off, &frame, &err)) > 0) {
		const char *s = frame.data, *end = s + frame.len;
		if (frame.stream == DOCKER_LOG_SYSTEM) {
			const char *nl = memchr(s, '\n', frame.len);
			log_warnx("a part of the log of the filtering proxy %s is lost: %.*s",
				  p->name, (int)(nl ? (size_t)(nl - s) : frame.len), s);
			continue;
		}
		while (s < end) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
			fprintf(f, "%.*s: %.*s\n", (int)(strlen(p->name) - strlen("-proxy")),
				p->name, (int)l, s);
			s += l + (nl ? 1 : 0);
		}
	}
	if (r < 0) {
		log_warnx("the log of the filtering proxy %s is cut short: %s", p->name, err);
		free(err);
	}
	if (fclose(f) != 0)
		abort();
	dir = xasprintf("%.*s", (int)(strrchr(ps->log_path, '/') - ps->log_path), ps->log_path);
	r = fileio_mkdir_p(dir, 0755);
	int fd = r < 0 ? -1 : open(ps->log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0 || fileio_write_all(fd, text, tlen) < 0)
		log_warn("cannot append the log of the filtering proxy %s to %s", p->name,
			 ps->log_path);
	if (fd >= 0)
		close(fd);
}

bool swarm_proxy_remove(struct swarm_proxies *ps, struct swarm_proxy *p)
{
	char *err = NULL;
	bool ended = true;

	if (!p)
		return true;
	if (p->service_id) {
		save_log(ps, p);
		ended = swarm_stop_tasks(ps->docker, &p->service_id, 1, SWARM_STOP_WAIT_MS,
					 NULL) == 0;
		if (ended && docker_swarm_remove(ps->docker, DOCKER_SWARM_SERVICE, p->service_id,
						 &err) != DOCKER_OK) {
			log_warnx("removing the filtering proxy %s failed: %s (swept later)",
				  p->name, err);
			free(err);
			err = NULL;
		}
	}
	for (size_t i = 0; ended && i < ARRAY_SIZE(p->config_ids); i++) {
		if (p->config_ids[i] && docker_swarm_remove(ps->docker, DOCKER_SWARM_CONFIG,
							    p->config_ids[i], &err) != DOCKER_OK) {
			log_debug("removing a config of %s failed: %s (swept later)", p->name, err);
			free(err);
			err = NULL;
		}
	}
	free(p->name);
	free(p->service_id);
	for (size_t i = 0; i < ARRAY_SIZE(p->config_ids); i++)
		free(p->config_ids[i]);
	free(p);
	return ended;
}
