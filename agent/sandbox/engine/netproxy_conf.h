/* What the filtering proxy of the network allowlist mode is made of,
 * whichever engine runs it: its tinyproxy configuration and filter file
 * (default-deny, one exact host name per rule), the environment a run
 * behind it gets, and the pip image's settings. The local proxy
 * (sandbox/netproxy.h) writes the files and runs tinyproxy on this
 * machine; on Swarm (swarm/swarm_proxy.h) they go into Swarm configs of a
 * proxy service of each run. */
#ifndef MAI_NETPROXY_CONF_H
#define MAI_NETPROXY_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox_options.h"

struct netproxy_options {
	const char *dir;                 /* config, filter and log go here (created) */
	const char *const *allowed_hosts; /* exact host names */
	size_t n_hosts;
	const char *listen;              /* the address to listen on, e.g. 172.18.0.1 */
	int port;
	const char *client_subnet;       /* who may use it, e.g. 172.18.0.0/16 */
	const char *program;             /* NULL: "tinyproxy" from PATH */
	const char *run_as_user;         /* NULL: "nobody" when started as root */
	const char *run_as_group;        /* NULL: "nogroup" when started as root */
};

/* The tinyproxy.conf text and the filter file text (one anchored extended
 * regular expression per host, dots escaped) for o; both caller frees.
 * -EINVAL with *err (caller frees) when a value cannot go into the file
 * (a quote or a line break in a path, a host with characters outside
 * [A-Za-z0-9.-], no hosts at all). */
int netproxy_render(const struct netproxy_options *o, char **conf, char **filter, char **err);

/* The environment of a run behind the proxy at url: HTTP(S)_PROXY (both
 * cases) and pip's PIP_INDEX_URL; NULL-terminated, netproxy_env_free(). */
char **netproxy_env(const char *url, const char *index_url);
void netproxy_env_free(char **env);

/* The pip image and how dependencies are installed with it. */
struct sandbox_pip {
	const char *image;
	/* NULL: the image is missing. Atomic: an engine may set it after
	 * open, once, while runs read it (sandbox_net_find_pip()). */
	const char *_Atomic image_id;
	const char *index_url;
	int64_t install_timeout_ms, install_size;
};

/* o's pip settings with their defaults, the strings copied; image_id NULL
 * (the engine sets it with sandbox_pip_set_image_id()). */
struct sandbox_pip *sandbox_pip_new(const struct sandbox_network_options *o);
void sandbox_pip_set_image_id(struct sandbox_pip *pip, const char *id);
void sandbox_pip_free(struct sandbox_pip *pip);

#endif
