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

#include "netproxy_conf.h"

struct netproxy;

/* Writes the files, starts the proxy and waits until it accepts
 * connections. 0, or -errno with *err (caller frees) naming what to fix. */
int netproxy_start(const struct netproxy_options *o, struct netproxy **out, char **err);
/* Stops the proxy (SIGTERM, then SIGKILL) and its supervisor. NULL is fine. */
void netproxy_stop(struct netproxy *p);
/* The proxy URL containers use: "http://LISTEN:PORT"; owned by p. */
const char *netproxy_url(const struct netproxy *p);

#endif
