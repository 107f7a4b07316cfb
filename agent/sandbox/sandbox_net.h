/* The allowlist mode of a sandbox: an internal Docker network (no route
 * out of it), a packet filter on its bridge that lets it reach nothing of
 * the host but the proxy's port (netfilter.h), and the filtering proxy
 * listening on the host's address on that network, its only way out. With
 * it, the pip image, which installs PEP 723 dependencies and reads their
 * blocks (sandbox_deps.h). */
#ifndef MAI_SANDBOX_NET_H
#define MAI_SANDBOX_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "docker.h"
#include "netproxy_conf.h"
#include "sandbox_options.h"

struct sandbox_net;

/* Checks the pip image and, when wanted (a level has network: allowlist),
 * creates the network, its packet filter and the proxy, or else removes
 * what an earlier run of instance left of them. d is borrowed. 0 with *out
 * (freed with sandbox_net_stop()), or -errno with *err (caller frees) and
 * nothing left behind. */
int sandbox_net_start(struct docker *d, const char *instance, bool wanted,
		      const struct sandbox_network_options *o, struct sandbox_net **out,
		      char **err);
/* Stops the proxy and removes the network, then its filter. NULL: no-op. */
void sandbox_net_stop(struct sandbox_net *n);

const struct sandbox_pip *sandbox_net_pip(const struct sandbox_net *n);
/* The pip image was missing at start: looks for it again and, when it is
 * there now (built since), sets its id in sandbox_net_pip(n); the id, once
 * set, stays until stop. Thread-safe. */
void sandbox_net_find_pip(struct sandbox_net *n);
/* The network's name, NULL when no level uses it (or n is NULL). */
const char *sandbox_net_name(const struct sandbox_net *n);
/* A container's environment on the network (the proxy's variables,
 * NULL-terminated), NULL when there is none. */
const char *const *sandbox_net_env(const struct sandbox_net *n);

#endif
