#include "sandbox_net.h"

#include <pthread.h>
#include <string.h>

#include "hash.h"
#include "log.h"
#include "macro.h"
#include "netfilter.h"
#include "netproxy.h"

struct sandbox_net {
	struct docker *docker; /* borrowed */
	char *instance;
	char *name;         /* NULL: no level uses the network */
	bool filtered;      /* its packet filter is installed (netfilter.h) */
	struct netproxy *proxy;
	char **env;         /* NULL-terminated container env for the network */
	struct sandbox_pip *pip;
	pthread_mutex_t pip_lock; /* who sets pip's image id after start */
};

/* "mai-net-<12 hex of sha256(instance)>": stable across restarts of one
 * agent, distinct between agents. It also tags the packet filter. */
static char *network_name(const char *instance)
{
	char hex[HASH_SHA256_HEX_LEN + 1];

	hash_sha256_hex(instance, strlen(instance), hex);
	return xasprintf("mai-net-%.12s", hex);
}

/* "mai-<11 hex>", the same hash: an interface name has at most 15
 * characters. */
static char *bridge_name(const char *instance)
{
	char hex[HASH_SHA256_HEX_LEN + 1];

	hash_sha256_hex(instance, strlen(instance), hex);
	return xasprintf("mai-%.11s", hex);
}

/* The network of an earlier run of this agent goes first: its containers
 * were removed as leftovers, and its gateway may have changed. */
static int create_network(struct sandbox_net *n, struct docker_network *net, char **err)
{
	const struct docker_label labels[] = {
		{ "mai.agent", "1" },
		{ "mai.instance", n->instance },
	};
	_cleanup_free_ char *id = NULL, *bridge = bridge_name(n->instance);
	char *e = NULL;

	if (docker_network_remove(n->docker, n->name, &e) != DOCKER_OK) {
		log_warnx("removing the leftover network %s failed: %s", n->name, e);
		free(e);
	}
	if (docker_network_create_internal(n->docker, n->name, bridge, labels,
					   ARRAY_SIZE(labels), &id, err))
		return -EIO;
	if (docker_network_inspect(n->docker, id, net, err))
		return -EIO;
	if (strcmp(net->bridge, bridge) != 0) {
		*err = xasprintf("Docker created the network %s on the bridge '%s', not %s as "
				 "asked: its packet filter would not apply (set network: none in "
				 "config/sandbox.yaml to run without the allowlist mode)",
				 n->name, net->bridge, bridge);
		return -EIO;
	}
	if (net->icc) {
		*err = xasprintf("Docker created the network %s with its containers reaching one "
				 "another (%s is not false): one job could talk to another (set "
				 "network: none in config/sandbox.yaml to run without the allowlist "
				 "mode)", n->name, DOCKER_BRIDGE_ICC_OPTION);
		return -EIO;
	}
	if (!net->internal || !*net->gateway || !*net->subnet) {
		*err = xasprintf("Docker created the network %s without %s; the allowlist mode "
				 "needs an internal network with a gateway address (set network: "
				 "none in config/sandbox.yaml to run without it)", n->name,
				 !net->internal ? "Internal: true" : "a gateway and subnet");
		return -EIO;
	}
	return 0;
}

/* The packet filter goes only with the network: while the network is
 * there, containers may still be on it. What stays is removed at the next
 * start. */
static void remove_network(struct sandbox_net *n, const char *name, bool filtered)
{
	char *e = NULL;

	if (docker_network_remove(n->docker, name, &e) != DOCKER_OK) {
		log_warnx("removing the sandbox network %s failed: %s; its packet filter stays "
			  "until the next start", name, e);
		free(e);
		return;
	}
	if (filtered && netfilter_guard_remove(name, &e) < 0) {
		log_warnx("removing the packet filter of %s failed: %s", name, e);
		free(e);
	}
}

/* An earlier run with a network: allowlist level that ended without
 * cleaning up left its network and packet filter: they go now. */
static void remove_leftover(struct sandbox_net *n)
{
	_cleanup_free_ char *name = network_name(n->instance);
	struct docker_network net;
	char *e = NULL;

	if (docker_network_inspect(n->docker, name, &net, &e) != DOCKER_OK) {
		free(e);
		return;
	}
	docker_network_clear(&net);
	log_info("removing the leftover sandbox network %s and its packet filter", name);
	remove_network(n, name, true);
}

/* Sets the pip image's id when the engine has the image; 0, or -ENOENT
 * with *e (Docker's word, caller frees). */
static int look_for_pip(struct sandbox_net *n, char **e)
{
	struct docker_image img = { 0 };
	int r = docker_image_inspect(n->docker, n->pip->image, &img, e) == DOCKER_OK ? 0 : -ENOENT;

	if (r == 0)
		sandbox_pip_set_image_id(n->pip, img.id);
	docker_image_clear(&img);
	return r;
}

/* What sandbox_net_start does, into n; what it made stays for stop. */
static int start(struct sandbox_net *n, bool wanted, const struct sandbox_network_options *o,
		 char **err)
{
	struct docker_network net = { 0 };
	_cleanup_free_ char *dir = NULL;
	char *e = NULL;
	int r;

	/* Without an allowlist level the pip image still reads PEP 723 blocks
	 * when it is there; it is required only with one. */
	(void)look_for_pip(n, &e);
	if (!wanted) {
		free(e);
		remove_leftover(n);
		return 0;
	}
	if (!n->pip->image_id) {
		*err = xasprintf("%s; a trust level has network: allowlist and needs it: build it "
				 "with packaging/sandbox-image/build.sh --variant pip, or set "
				 "network.image in config/sandbox.yaml", e);
		free(e);
		return -ENOENT;
	}
	free(e);
	n->name = network_name(n->instance);
	r = create_network(n, &net, err);
	if (r == 0) {
		struct netfilter_guard g = {
			.bridge = net.bridge, .gateway = net.gateway, .port = o->proxy_port,
			.tag = n->name,
		};
		r = netfilter_guard_install(&g, err);
		n->filtered = r == 0;
	}
	if (r == 0) {
		dir = xasprintf("%s/proxy", o->state_dir ? o->state_dir : ".");
		struct netproxy_options po = {
			.dir = dir, .allowed_hosts = o->allowed_hosts, .n_hosts = o->n_hosts,
			.listen = net.gateway, .port = o->proxy_port, .client_subnet = net.subnet,
			.program = o->proxy_program,
		};
		r = netproxy_start(&po, &n->proxy, err);
	}
	if (r == 0) {
		n->env = netproxy_env(netproxy_url(n->proxy), n->pip->index_url);
		log_info("sandbox network %s (internal, %s): its only way out is the proxy at %s",
			 n->name, net.subnet, netproxy_url(n->proxy));
	}
	docker_network_clear(&net);
	return r;
}

int sandbox_net_start(struct docker *d, const char *instance, bool wanted,
		      const struct sandbox_network_options *o, struct sandbox_net **out,
		      char **err)
{
	struct sandbox_net *n = xcalloc(1, sizeof(*n));
	int r;

	n->docker = d;
	n->instance = xstrdup(instance);
	n->pip = sandbox_pip_new(o);
	pthread_mutex_init(&n->pip_lock, NULL);
	r = start(n, wanted, o, err);
	if (r < 0) {
		sandbox_net_stop(n);
		n = NULL;
	}
	*out = n;
	return r;
}

void sandbox_net_stop(struct sandbox_net *n)
{
	if (!n)
		return;
	netproxy_stop(n->proxy);
	if (n->name)
		remove_network(n, n->name, n->filtered);
	netproxy_env_free(n->env);
	free(n->name);
	free(n->instance);
	sandbox_pip_free(n->pip);
	pthread_mutex_destroy(&n->pip_lock);
	free(n);
}

const struct sandbox_pip *sandbox_net_pip(const struct sandbox_net *n)
{
	return n->pip;
}

void sandbox_net_find_pip(struct sandbox_net *n)
{
	char *e = NULL;

	pthread_mutex_lock(&n->pip_lock);
	if (!n->pip->image_id && look_for_pip(n, &e) == 0)
		log_info("the pip image %s is there now: PEP 723 blocks can be read", n->pip->image);
	free(e);
	pthread_mutex_unlock(&n->pip_lock);
}

const char *sandbox_net_name(const struct sandbox_net *n)
{
	return n ? n->name : NULL;
}

const char *const *sandbox_net_env(const struct sandbox_net *n)
{
	return n ? (const char *const *)n->env : NULL;
}
