/* The allowlist mode of the sandbox: an internal Docker network (no route
 * out of it) and the filtering proxy listening on the host's address on that
 * network, its only way out. */
#include <string.h>

#include "hash.h"
#include "log.h"
#include "macro.h"
#include "netproxy.h"
#include "sandbox_internal.h"

bool sandbox_trust_has_network(const struct sandbox *sb, enum sandbox_trust t)
{
	return sb->net_name && sb->trust[t].network_allowlist;
}

/* "mai-net-<12 hex of sha256(instance)>": stable across restarts of one
 * agent, distinct between agents. */
static char *network_name(const char *instance)
{
	char hex[HASH_SHA256_HEX_LEN + 1];

	hash_sha256_hex(instance, strlen(instance), hex);
	return xasprintf("mai-net-%.12s", hex);
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
	_cleanup_free_ char *id = NULL;
	char *e = NULL;

	if (docker_network_remove(sb->docker, sb->net_name, &e) != DOCKER_OK) {
		log_warnx("removing the leftover network %s failed: %s", sb->net_name, e);
		free(e);
	}
	if (docker_network_create_internal(sb->docker, sb->net_name, labels, ARRAY_SIZE(labels),
					   &id, err))
		return -EIO;
	if (docker_network_inspect(sb->docker, id, net, err))
		return -EIO;
	if (!net->internal || !*net->gateway || !*net->subnet) {
		*err = xasprintf("Docker created the network %s without %s; the allowlist mode "
				 "needs an internal network with a gateway address (set network: "
				 "none in config/sandbox.yaml to run without it)", sb->net_name,
				 !net->internal ? "Internal: true" : "a gateway and subnet");
		return -EIO;
	}
	return 0;
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
	for (int t = 0; t < SANDBOX_TRUST_COUNT; t++)
		wanted |= sb->trust[t].network_allowlist;
	if (!wanted) {
		free(e);
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
	char *e = NULL;

	netproxy_stop(sb->proxy);
	sb->proxy = NULL;
	if (sb->net_name && docker_network_remove(sb->docker, sb->net_name, &e) != DOCKER_OK) {
		log_warnx("removing the sandbox network %s failed: %s", sb->net_name, e);
		free(e);
	}
	for (char **v = sb->net_env; v && *v; v++)
		free(*v);
	free(sb->net_env);
	free(sb->net_name);
	free(sb->pip_image);
	free(sb->pip_image_id);
	free(sb->index_url);
	sb->net_env = NULL;
	sb->net_name = sb->pip_image = sb->pip_image_id = sb->index_url = NULL;
}
