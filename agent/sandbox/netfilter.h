/* The host's packet filter around the allowlist mode's sandbox network.
 *
 * A Docker network with Internal: true has no route out, but the host's own
 * address on its bridge (the gateway) stays reachable, and with it every
 * host service listening on all addresses. The guard closes that: traffic
 * coming in on the network's bridge interface may reach the host only as
 * TCP to the proxy's port on the gateway address (and replies to it);
 * everything else, to any host address, is dropped.
 *
 * It is an iptables chain named after the tag, holding the rules, and one
 * rule at the top of INPUT that sends the bridge's traffic there; every rule
 * carries the tag as its comment ("iptables -S | grep TAG" shows them). The
 * program is iptables from PATH, as for Docker. Only IPv4: Docker disables
 * IPv6 inside the containers of a network without IPv6. */
#ifndef MAI_NETFILTER_H
#define MAI_NETFILTER_H

struct netfilter_guard {
	const char *bridge;  /* the network's bridge interface, e.g. mai-3fa9c0e1d2b */
	const char *gateway; /* the host's address on it, where the proxy listens */
	int port;            /* the proxy's port */
	const char *tag;     /* chain name and comment: [A-Za-z0-9-], at most 28 chars */
};

/* Removes what an earlier run left under g->tag, then installs the guard.
 * 0, or -errno with *err (caller frees) saying what to do: iptables missing,
 * not allowed (the agent is not root), or a rule refused. */
int netfilter_guard_install(const struct netfilter_guard *g, char **err);

/* Removes every rule and the chain tagged tag; none left is not an error.
 * 0, or -errno with *err (caller frees). */
int netfilter_guard_remove(const char *tag, char **err);

#endif
