/* The allowlist mode of the sandbox: an internal Docker network (no route
 * out of it), a packet filter on its bridge that lets it reach nothing of
 * the host but the proxy's port (netfilter.h), and the filtering proxy
 * listening on the host's address on that network, its only way out. */
#include <string.h>

#include "hash.h"
#include "log.h"
#include "macro.h"
#include "netfilter.h"
#include "netproxy.h"
#include "sandbox_internal.h"

bool sandbox_trust_has_network(const struct sandbox *sb, enum trust t)
{
	return sb->net_name && sb->trust[t].network_allowlist;
}

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

static char **proxy_env(const char *url, const char *index_url)
{
	char **env = xcalloc(6, sizeof(char *));

	env[0] = xasprintf("HTTP_PROXY=%s", url);
	env[1] = xasprintf("HTTPS_PROXY=%s", url);
	env[2] = xasprintf("http_proxy=%s", url);
	env[3] = xasprintf("https_proxy=%s", url);
	env[4] = xasprintf("PIP_INDEX_URL=%s", index_url);
	return env;
}

/* The network of an earlier run of this agent goes first: its containers
 * were removed as leftovers, and its gateway may have changed. */
static int create_network(struct sandbox *sb, struct docker_network *net, char **err)
{
	const struct docker_label labels[] = {
		{ "mai.agent", "1" },
		{ "mai.instance", sb->instance },
	};
	_cleanup_free_ char *id = NULL, *bridge = bridge_name(sb->instance);
	char *e = NULL;

	if (docker_network_remove(sb->docker, sb->net_name, &e) != DOCKER_OK) {
		log_warnx("removing the leftover network %s failed: %s", sb->net_name, e);
		free(e);
	}
	if (docker_network_create_internal(sb->docker, sb->net_name, bridge, labels,
					   ARRAY_SIZE(labels), &id, err))
		return -EIO;
	if (docker_network_inspect(sb->docker, id, net, err))
		return -EIO;
	if (strcmp(net->bridge, bridge) != 0) {
		*err = xasprintf("Docker created the network %s on the bridge '%s', not %s as "
				 "asked: its packet filter would not apply (set network: none in "
				 "config/sandbox.yaml to run without the allowlist mode)",
				 sb->net_name, net->bridge, bridge);
		return -EIO;
	}
	if (net->icc) {
		*err = xasprintf("Docker created the network %s with its containers reaching one "
				 "another (%s is not false): one job could talk to another (set "
				 "network: none in config/sandbox.yaml to run without the allowlist "
				 "mode)", sb->net_name, DOCKER_BRIDGE_ICC_OPTION);
		return -EIO;
	}
	if (!net->internal || !*net->gateway || !*net->subnet) {
		*err = xasprintf("Docker created the network %s without %s; the allowlist mode "
				 "needs an internal network with a gateway address (set network: "
				 "none in config/sandbox.yaml to run without it)", sb->net_name,
				 !net->internal ? "Internal: true" : "a gateway and subnet");
		return -EIO;
	}
	return 0;
}

/* The packet filter goes only with the network: while the network is
 * there, containers may still be on it. What stays is removed at the next
 * start. */
static void remove_network(struct sandbox *sb, const char *name, bool filtered)
{
	char *e = NULL;

	if (docker_network_remove(sb->docker, name, &e) != DOCKER_OK) {
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
static void remove_leftover(struct sandbox *sb)
{
	_cleanup_free_ char *name = network_name(sb->instance);
	struct docker_network net;
	char *e = NULL;

	if (docker_network_inspect(sb->docker, name, &net, &e) != DOCKER_OK) {
		free(e);
		return;
	}
	docker_network_clear(&net);
	log_info("removing the leftover sandbox network %s and its packet filter", name);
	remove_network(sb, name, true);
}

int sandbox_net_start(struct sandbox *sb, const struct sandbox_network_options *o, char **err)
{
	struct docker_network net = { 0 };
	struct docker_image img = { 0 };
	_cleanup_free_ char *dir = NULL;
	char *e = NULL;
	int r;

	sb->pip_image = xstrdup(o->image ? o->image : "mai-sandbox-pip:latest");
	sb->index_url = xstrdup(o->index_url ? o->index_url : "https://pypi.org/simple");
	sb->install_timeout_ms = o->install_timeout_ms > 0 ? o->install_timeout_ms : 120000;
	sb->install_size = o->install_size > 0 ? o->install_size : 256LL << 20;
	/* Without an allowlist level the pip image still reads PEP 723 blocks
	 * when it is there; it is required only with one. */
	if (docker_image_inspect(sb->docker, sb->pip_image, &img, &e) == DOCKER_OK)
		sb->pip_image_id = xstrdup(img.id);
	docker_image_clear(&img);
	bool wanted = false;
	for (int t = 0; t < TRUST_COUNT; t++)
		wanted |= sb->trust[t].network_allowlist;
	if (!wanted) {
		free(e);
		remove_leftover(sb);
		return 0;
	}
	if (!sb->pip_image_id) {
		*err = xasprintf("%s; a trust level has network: allowlist and needs it: build it "
				 "with packaging/sandbox-image/build.sh --variant pip, or set "
				 "network.image in config/sandbox.yaml", e);
		free(e);
		return -ENOENT;
	}
	free(e);
	sb->net_name = network_name(sb->instance);
	r = create_network(sb, &net, err);
	if (r == 0) {
		struct netfilter_guard g = {
			.bridge = net.bridge, .gateway = net.gateway, .port = o->proxy_port,
			.tag = sb->net_name,
		};
		r = netfilter_guard_install(&g, err);
		sb->net_filtered = r == 0;
	}
	if (r == 0) {
		dir = xasprintf("%s/proxy", o->state_dir ? o->state_dir : ".");
		struct netproxy_options po = {
			.dir = dir, .allowed_hosts = o->allowed_hosts, .n_hosts = o->n_hosts,
			.listen = net.gateway, .port = o->proxy_port, .client_subnet = net.subnet,
			.program = o->proxy_program,
		};
		r = netproxy_start(&po, &sb->proxy, err);
	}
	if (r == 0) {
		sb->net_env = proxy_env(netproxy_url(sb->proxy), sb->index_url);
		log_info("sandbox network %s (internal, %s): its only way out is the proxy at %s",
			 sb->net_name, net.subnet, netproxy_url(sb->proxy));
	}
	docker_network_clear(&net);
	return r;
}

void sandbox_net_stop(struct sandbox *sb)
{
	netproxy_stop(sb->proxy);
	sb->proxy = NULL;
	if (sb->net_name)
		remove_network(sb, sb->net_name, sb->net_filtered);
	for (char **v = sb->net_env; v && *v; v++)
		free(*v);
	free(sb->net_env);
	free(sb->net_name);
	free(sb->pip_image);
	free(sb->pip_image_id);
	free(sb->index_url);
	sb->net_env = NULL;
	sb->net_name = sb->pip_image = sb->pip_image_id = sb->index_url = NULL;
	sb->net_filtered = false;
}
