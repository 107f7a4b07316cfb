/* The swarm's nodes as the Swarm engine places runs on them: each node's
 * trust level (the value of its label engine.node_label), and whether a
 * probe job proved its settings (the runtime its level needs, no new
 * privileges, a non-root uid, a read-only root, no capabilities, no route
 * out, the sandbox's uid_range free of the node's accounts, groups and
 * subordinate ranges) before any run goes there. A node that is not proven, or whose
 * probe failed, is excluded by a placement constraint (node.id!=ID); a
 * node that joins later is probed before its first run. Thread-safe. */
#ifndef MAI_SWARM_NODES_H
#define MAI_SWARM_NODES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker.h"
#include "level.h"

/* How a node is probed (swarm_engine.c): start a probe job on node_id for
 * trust level t, then finish it: 0 with *output (its stdout, caller
 * frees), or -errno with *err (caller frees). */
struct swarm_prober {
	void *(*start)(void *arg, const char *node_id, enum trust t, char **err);
	int (*finish)(void *arg, void *probe, char **output, char **err);
	/* After a round that probed at least one node; may be NULL. */
	void (*done)(void *arg, json_t *nodes);
	void *arg;
};

struct swarm_nodes;

/* label_key: the label naming a node's level; gvisor[t]: level t's nodes
 * must run gVisor (runsc) by default, else runc with no-new-privileges and
 * seccomp. d and prober are borrowed. */
struct swarm_nodes *swarm_nodes_new(struct docker *d, const char *label_key,
				    const bool gvisor[TRUST_COUNT],
				    const struct swarm_prober *prober);
void swarm_nodes_free(struct swarm_nodes *n);

/* Lists the nodes again (at most every few seconds unless force: a run's
 * placement forces it, so that a label changed since is seen), and probes every ready node of level t (every level when
 * all_levels) that has not been probed. The placement constraints of a run
 * at level t (NULL-terminated, docker_strv_free), 0; or -ENODEV with *err
 * (caller frees) saying why no node of that level may take it. */
int swarm_nodes_place(struct swarm_nodes *n, enum trust t, bool all_levels, bool force,
		      char ***constraints, char **err);
/* Whether node_id is a ready node of level t whose probe passed: a run the
 * scheduler placed elsewhere (a label changed after the last list) is
 * stopped before it starts. */
bool swarm_nodes_proven(struct swarm_nodes *n, const char *node_id, enum trust t);
/* Whether node_id has gone from the swarm or is no longer ready (its
 * dockerd stopped, its host unreachable): a run there is lost. Lists the
 * nodes again at most once a second, for all runs together. */
bool swarm_nodes_lost(struct swarm_nodes *n, const char *node_id);
/* The node's hostname (caller frees), or a copy of its id when unknown. */
char *swarm_nodes_hostname(struct swarm_nodes *n, const char *node_id);
/* Every node: id, hostname, level, state, probe ("ok", "failed",
 * "not probed"), why, the checks' lines. For status and the audit log;
 * caller decrefs. */
json_t *swarm_nodes_report(struct swarm_nodes *n);
/* Where a probe finds the node's /etc (mounted read-only for it alone). */
#define SWARM_NODE_ETC "/mai-node/etc"
/* The probe's Python source for level t (gVisor or not), checking that no
 * account, group or subordinate range of the node uses uid_first..uid_last.
 * Caller frees. */
char *swarm_nodes_probe_script(bool gvisor, uint32_t uid_first, uint32_t uid_last);

#endif
