/* Configuration -> module options: the only place that reads the loaded
 * configuration (config.h) on behalf of the modules below it, so that the
 * audit writer, the sandbox and the assessor's bridge to the sandbox never
 * depend on the configuration's layout (docs/ARCHITECTURE.md "Layers"). */
#include "options.h"

#include <string.h>

#include "docker.h"
#include "sandbox_engine_docker.h"
#include "swarm_engine.h"

/* The client's certificate files from DOCKER_CERT_PATH: kept for the life
 * of the process (the options point into them). */
static char *env_tls[3];

static const char *nonempty(const char *s) { return s && *s ? s : NULL; }

/* The engine: sandbox.yaml's engine section, and where it says nothing the
 * Docker client's conventions (DOCKER_HOST, DOCKER_TLS_VERIFY,
 * DOCKER_CERT_PATH), so that an agent started where `docker` works reaches
 * the same engine. The backend is picked here, once. */
static void engine_from_config(const struct mai_config *cfg, struct sandbox_engine_options *e)
{
	const struct config_sandbox *c = &cfg->sandbox;
	const char *host = nonempty(c->engine.host);
	const char *env_host = nonempty(getenv("DOCKER_HOST"));
	const char *verify = nonempty(getenv("DOCKER_TLS_VERIFY"));
	const char *cert_path = nonempty(getenv("DOCKER_CERT_PATH"));
	static const char *const files[3] = { "ca.pem", "cert.pem", "key.pem" };

	e->ops = c->engine.mode == CONFIG_ENGINE_SWARM ? &swarm_engine : &sandbox_engine_docker;
	e->host = host ? host : env_host;
	e->tls_ca = nonempty(c->engine.tls.ca);
	e->tls_cert = nonempty(c->engine.tls.cert);
	e->tls_key = nonempty(c->engine.tls.key);
	if (!e->tls_ca && !e->tls_cert && !e->tls_key && verify && strcmp(verify, "0") != 0) {
		const char *dir = cert_path;
		_cleanup_free_ char *home = NULL;
		if (!dir && getenv("HOME"))
			dir = home = xasprintf("%s/.docker", getenv("HOME"));
		for (int i = 0; i < 3 && dir; i++) {
			free(env_tls[i]);
			env_tls[i] = xasprintf("%s/%s", dir, files[i]);
		}
		if (dir) {
			e->tls_ca = env_tls[0];
			e->tls_cert = env_tls[1];
			e->tls_key = env_tls[2];
		}
	}
	e->node_label_key = c->engine.node_label;
	e->probe_timeout_ms = (int64_t)c->engine.probe_timeout_ms;
}

void sandbox_options_from_config(const struct mai_config *cfg, const char *instance_id,
				 struct sandbox_options *o)
{
	const struct config_sandbox *c = &cfg->sandbox;

	sandbox_options_defaults(o);
	o->socket_path = cfg->agent.docker.socket;
	engine_from_config(cfg, &o->engine);
	o->image = c->image;
	if (config_uid_range_parse(c->uid_range, &o->uid_first, &o->uid_last) < 0) {
		/* The loader checked it: keep the defaults. */
		o->uid_first = SANDBOX_UID_FIRST;
		o->uid_last = SANDBOX_UID_LAST;
	}
	o->uid_check = true;
	o->instance_id = instance_id;
	o->workers = cfg->agent.workers > 0 ? (unsigned)cfg->agent.workers : 1;
	o->pool_size = c->pool_size == CONFIG_AUTO ? SANDBOX_POOL_AUTO
		     : c->pool_size > 0 ? (unsigned)c->pool_size : 0;
	o->self_test = c->self_test;
	o->network = (struct sandbox_network_options){
		.state_dir = cfg->agent.state_dir,
		.allowed_hosts = (const char *const *)c->network.allowed_hosts.items,
		.n_hosts = c->network.allowed_hosts.n,
		.index_url = c->network.index_url,
		.proxy_port = (int)c->network.proxy_port,
		.image = c->network.image,
		.proxy_image = c->network.proxy_image,
		.install_timeout_ms = (int64_t)c->network.install_timeout_ms,
		.install_size = (int64_t)c->network.install_size,
	};
	for (int t = 0; t < TRUST_COUNT; t++) {
		const struct config_trust_limits *l = &c->levels[t];
		struct sandbox_trust_options *to = &o->trust[t];
		to->base = (struct sandbox_limits){
			.memory_bytes = (int64_t)l->memory, .nano_cpus = (int64_t)l->nano_cpus,
			.pids = l->pids, .tmpfs_bytes = (int64_t)l->tmpfs_size, .nofile = l->nofile,
			.fsize_bytes = (int64_t)l->fsize, .timeout_ms = (int64_t)l->timeout_ms,
			.sigpending = l->sigpending, .msgqueue_bytes = (int64_t)l->msgqueue,
			.memlock_bytes = (int64_t)l->memlock,
			.stdout_max = (int64_t)c->stdout_max, .stderr_max = (int64_t)c->stderr_max,
		};
		to->runtime = l->runtime;
		to->no_scale = !l->scale;
		to->network_allowlist = l->network == CONFIG_NETWORK_ALLOWLIST;
	}
}

/* Appends a trust level's name to a list ("untrusted", "trusted, untrusted"). */
static void add_level(char **list, int t)
{
	char *l = xasprintf("%s%s%s", *list, **list ? ", " : "", trust_to_string((enum trust)t));
	free(*list);
	*list = l;
}

int sandbox_options_resolve_auto(struct sandbox_options *o, char **warning, char **err)
{
	struct docker_options dopts = {
		.socket_path = o->socket_path, .host = o->engine.host,
		.tls = { o->engine.tls_ca, o->engine.tls_cert, o->engine.tls_key },
	};
	struct docker_info info = { 0 };
	_cleanup_free_ char *fell_back = xstrdup(""), *networked = xstrdup("");
	bool any = false;

	*warning = NULL;
	for (int t = 0; t < TRUST_COUNT; t++)
		any |= o->trust[t].runtime && strcmp(o->trust[t].runtime, "auto") == 0;
	if (!any)
		return 0;
	if (o->engine.ops && !(o->engine.ops->caps & SANDBOX_ENGINE_HAS_RUNTIME_CHOICE)) {
		/* The runtime is the nodes' (their dockerd's default), proven by
		 * a probe before a run goes there: gVisor where a level may
		 * have it, as on an engine that has it registered. */
		for (int t = 0; t < TRUST_COUNT; t++)
			if (o->trust[t].runtime && strcmp(o->trust[t].runtime, "auto") == 0)
				o->trust[t].runtime =
					o->trust[t].network_allowlist ? "runc" : "runsc";
		return 0;
	}
	struct docker *d = NULL;
	if (docker_open(&dopts, &d, err) < 0)
		return -EINVAL;
	enum docker_error e = docker_info(d, &info, err);
	docker_free(d);
	if (e != DOCKER_OK)
		return -EHOSTDOWN;
	bool gvisor = docker_info_has_runtime(&info, "runsc");
	docker_info_clear(&info);
	for (int t = 0; t < TRUST_COUNT; t++) {
		if (!o->trust[t].runtime || strcmp(o->trust[t].runtime, "auto") != 0)
			continue;
		/* gVisor as packaging/ensure-docker.sh registers it has no network
		 * of its own (--network=none): an allowlist level needs runc. */
		bool use_gvisor = gvisor && !o->trust[t].network_allowlist;
		o->trust[t].runtime = use_gvisor ? "runsc" : "runc";
		if (!gvisor)
			add_level(&fell_back, t);
		else if (!use_gvisor)
			add_level(&networked, t);
	}
	if (*fell_back)
		*warning = xasprintf("runtime auto (%s): gVisor (runsc) is not registered with "
				     "dockerd, so these scripts run with runc and share the host's "
				     "kernel; install gVisor and register it as runsc "
				     "(packaging/ensure-docker.sh), or set runtime: runc in "
				     "sandbox.yaml to say that runc is meant", fell_back);
	else if (*networked)
		*warning = xasprintf("runtime auto (%s): network: allowlist needs the container's "
				     "own network, which gVisor as registered for the agent "
				     "(--network=none) does not give, so these scripts run with runc "
				     "and share the host's kernel; set runtime: runc in sandbox.yaml "
				     "to say that runc is meant", networked);
	return 0;
}

void assess_sandbox_from_config(const struct mai_config *cfg, struct assess_sandbox *out)
{
	for (int t = 0; t < TRUST_COUNT; t++)
		out->network[t] = cfg->sandbox.levels[t].network == CONFIG_NETWORK_ALLOWLIST;
}

void sandbox_metrics_from_assess(const struct py_metrics *in, struct sandbox_code_metrics *out)
{
	*out = (struct sandbox_code_metrics){
		.bytes = in->bytes, .lines = in->lines, .loops = in->loops,
		.imports = in->imports, .max_nesting = in->max_nesting,
	};
}

void audit_options_from_config(const struct config_audit *cfg, struct audit_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->log_dir = cfg->log_dir;
	opt->signing_key = cfg->signing_key && *cfg->signing_key ? cfg->signing_key : NULL;
	opt->public_key = cfg->public_key && *cfg->public_key ? cfg->public_key : NULL;
	opt->origin = cfg->origin;
	opt->fsync = cfg->fsync;
	opt->group_commit_delay_us = (unsigned)(cfg->group_commit_delay_ms * 1000);
	/* The writer's timer ticks in seconds; anything below rounds up to 1 s. */
	opt->checkpoint_interval_s = (unsigned)((cfg->checkpoint_interval_ms + 999) / 1000);
	opt->rotate_size = cfg->rotate_size;
	opt->rotate_age_s = (unsigned)(cfg->rotate_age_ms / 1000);
	opt->retention_age_s = (unsigned)(cfg->retention_age_ms / 1000);
	opt->diff_max = (size_t)cfg->diff_max;
}
