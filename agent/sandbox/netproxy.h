/* The filtering forward proxy of the network allowlist mode: a tinyproxy
 * (Debian's package) that the agent configures with default-deny filters
 * built from network.allowed_hosts, starts, restarts when it dies and stops
 * with the agent. It listens on one address only: the host's address on the
 * internal sandbox network (its gateway), the one place a container of that
 * network can reach. Its log goes to DIR/tinyproxy.log. */
#ifndef MAI_NETPROXY_H
#define MAI_NETPROXY_H

#include <stddef.h>
#include <sys/types.h>

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

struct netproxy;

/* Writes the files, starts the proxy and waits until it accepts
 * connections. 0, or -errno with *err (caller frees) naming what to fix. */
int netproxy_start(const struct netproxy_options *o, struct netproxy **out, char **err);
/* Stops the proxy (SIGTERM, then SIGKILL) and its supervisor. NULL is fine. */
void netproxy_stop(struct netproxy *p);
/* The proxy URL containers use: "http://LISTEN:PORT"; owned by p. */
const char *netproxy_url(const struct netproxy *p);

#endif
