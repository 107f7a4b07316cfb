/* The filtering proxy of network: allowlist on Swarm (docs/SCALING.md).
 *
 * Each run of an allowlist level gets a proxy service of its own, made
 * before the run's own service and removed after it:
 *  - on two networks: the run's fresh internal overlay (where the run
 *    reaches it by its service's name, the only thing there besides the
 *    run) and the instance's egress overlay, the one network with a way
 *    out (its tasks' node's docker_gwbridge), which only proxies join;
 *  - tinyproxy from the proxy image (packaging/sandbox-image/build.sh
 *    --variant proxy), with the configuration and filter the local proxy
 *    uses (netproxy_render(): default deny, exact host names from
 *    network.allowed_hosts, CONNECT to port 443 only), clients allowed
 *    from the run's overlay's subnet only, handed in as two Swarm configs;
 *  - confined as a run is: the run's own uid, read-only root, every
 *    capability dropped, small memory, CPU, pids and log limits, placed on
 *    the run's level's proven nodes;
 *  - the run's service is created only once the proxy's task runs;
 *  - before it goes, its log (tinyproxy's decisions: what the run fetched,
 *    what was refused) is appended to STATE/proxy/tinyproxy.log, the local
 *    proxy's log, each line after the run's service name.
 * Everything carries the run's labels (mai.instance, mai.job) and
 * mai.role=proxy, and is swept by label with the rest. */
#ifndef MAI_SWARM_PROXY_H
#define MAI_SWARM_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker_swarm.h"
#include "netproxy_conf.h"
#include "sandbox_options.h"

/* The proxy image a node must have, unless network.proxy_image names
 * another. */
#define SWARM_PROXY_IMAGE "mai-sandbox-proxy:latest"

struct swarm_proxies;
struct swarm_proxy;

/* Checks the proxy and pip images on the manager, checks that o renders,
 * and creates the instance's egress overlay (named after tag). 0 with
 * *out, or -errno with *err (caller frees) naming what to do; what was
 * made is left to the sweep. */
int swarm_proxies_open(struct docker *d, const char *instance, const char *tag,
		       const struct sandbox_network_options *o, struct swarm_proxies **out,
		       char **err);
/* Frees ps; the egress network goes with the sweep (by label). */
void swarm_proxies_free(struct swarm_proxies *ps);
/* The pip image's settings (struct sandbox_pip), owned by ps. */
const struct sandbox_pip *swarm_proxies_pip(const struct swarm_proxies *ps);
/* Where the proxies run, in words (status): "a proxy service of each
 * run's own (IMAGE)". */
const char *swarm_proxies_describe(const struct swarm_proxies *ps);

/* Makes the proxy of the run called name (its labels; network_id its
 * internal overlay; constraints its placement; uid its own) and waits, up
 * to wait_ms, until its task runs. 0 with *env (the run's proxy
 * variables, netproxy_env_free()), or -errno with *err; in both cases *out
 * holds what was made (swarm_proxy_remove()). */
int swarm_proxy_start(struct swarm_proxies *ps, const char *name,
		      const struct docker_label *labels, size_t n_labels,
		      const char *network_id, const char *const *constraints, uint32_t uid,
		      int64_t wait_ms, struct swarm_proxy **out, char ***env, char **err);
/* Appends the proxy's log to the proxy log, stops its task, removes its
 * service and configs (a service whose task does not end is left to the
 * sweep), and frees p. Whether its task has ended (its uid is free again);
 * NULL: true. */
bool swarm_proxy_remove(struct swarm_proxies *ps, struct swarm_proxy *p);

#endif
