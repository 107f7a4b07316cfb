/* The swarm's nodes and their probes: see swarm_nodes.h. */
#include "swarm_nodes.h"

#include <pthread.h>
#include <string.h>

#include "docker_swarm.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"

/* A node list older than this is asked for again before a run is placed. */
#define NODES_REFRESH_MS 5000
/* A running run asks whether its node is still there this often. */
#define NODES_LOST_CHECK_MS 1000

enum probe_state { PROBE_NONE, PROBE_OK, PROBE_FAILED };

struct node {
	char *id, *hostname, *state, *availability, *label;
	bool has_level;
	enum trust trust;
	enum probe_state probe;
	char *why;    /* a failed probe: what it saw */
	char *output; /* the probe's lines */
	bool seen;    /* in the last list */
};

struct swarm_nodes {
	struct docker *docker;
	char *label_key;
	bool gvisor[TRUST_COUNT];
	struct swarm_prober prober;
	pthread_mutex_t lock;   /* the table */
	pthread_mutex_t probing; /* one round of probes at a time */
	struct node *nodes;
	size_t n;
	int64_t listed_ms;
};

/* Each line: a check's name, a space, "ok" or what was seen instead. The
 * run's network is an internal overlay: it has an interface, but no route
 * out (no default route); under gVisor, as the agent registers it, no
 * network at all. */
static const char probe_common[] =
	"import os\n"
	"def probe(name, ok, seen):\n"
	"    print(name, 'ok' if ok else seen)\n"
	"root = [l.split()[3].split(',') for l in open('/proc/self/mounts') if l.split()[1] == '/']\n"
	"probe('root_readonly', bool(root) and 'ro' in root[-1], 'the root is mounted ' + ','.join(root[-1] if root else ['nowhere']))\n"
	"try:\n"
	"    routes = [l.split() for l in open('/proc/net/route').read().splitlines()[1:]]\n"
	"except OSError:\n"
	"    routes = []\n"
	"gw = [r[0] for r in routes if len(r) > 2 and r[1] == '00000000']\n"
	"probe('no_route_out', not gw, 'a default route via ' + ','.join(gw))\n"
	"st = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
	"caps = [k + '=' + st[k].strip() for k in ('CapEff', 'CapPrm', 'CapBnd') if int(st.get(k, '0'), 16)]\n"
	"probe('no_capabilities', not caps, ' '.join(caps))\n"
	"probe('non_root_user', os.getuid() != 0 and os.getgid() != 0, 'uid %d gid %d' % (os.getuid(), os.getgid()))\n"
	"print('run_uid', os.getuid(), os.getgid())\n"
	"tmp = [l.split()[3].split(',') for l in open('/proc/self/mounts') if l.split()[1] == '/tmp']\n"
	"probe('tmp_noexec', bool(tmp) and 'noexec' in tmp[-1], '/tmp is mounted ' + ','.join(tmp[-1] if tmp else ['nowhere']))\n"
	/* The node's accounts, groups and subordinate ranges (its /etc,
	 * mounted read-only for the probe alone) against the sandbox's
	 * uid_range (FIRST, LAST: the script's first line), as the local
	 * engine checks its own host's (sandbox_uidcheck.h). */
	"def ids_used():\n"
	"    etc = '" SWARM_NODE_ETC "/'\n"
	"    for f, what, cols in (('passwd', 'account', (2, 3)), ('group', 'group', (2,))):\n"
	"        for l in open(etc + f).read().splitlines():\n"
	"            w = l.split(':')\n"
	"            for c in cols:\n"
	"                if len(w) > c and w[c].isdigit() and FIRST <= int(w[c]) <= LAST:\n"
	"                    return '%s %s has %s %s' % (what, w[0], 'gid' if c == 3 or f == 'group' else 'uid', w[c])\n"
	"    for f in ('subuid', 'subgid'):\n"
	"        try:\n"
	"            lines = open(etc + f).read().splitlines()\n"
	"        except FileNotFoundError:\n"
	"            continue\n"
	"        for l in lines:\n"
	"            w = l.split(':')\n"
	"            if len(w) == 3 and w[1].isdigit() and w[2].isdigit() and int(w[1]) <= LAST and int(w[1]) + int(w[2]) > FIRST:\n"
	"                return '/etc/%s gives %s the ids %s-%d' % (f, w[0], w[1], int(w[1]) + int(w[2]) - 1)\n"
	"    return None\n"
	"try:\n"
	"    used = ids_used()\n"
	"except OSError as e:\n"
	"    used = \"the node's /etc could not be read (%s)\" % e.strerror\n"
	"probe('uid_range', used is None, \"%s in the sandbox's uid_range %d-%d on the node (keep the range free on every node)\" % (used, FIRST, LAST))\n";
/* runc: the host's kernel, behind no-new-privileges (daemon-wide on the
 * node: API 1.41 cannot ask for it per service) and the seccomp filter. */
static const char probe_runc[] =
	"probe('no_new_privileges', st.get('NoNewPrivs', '').strip() == '1', 'NoNewPrivs ' + st.get('NoNewPrivs', 'absent').strip() + ' (set no-new-privileges in the node\\'s daemon.json)')\n"
	"probe('seccomp', st.get('Seccomp', '').strip() == '2', 'Seccomp mode ' + st.get('Seccomp', 'absent').strip())\n";
/* runsc: gVisor's kernel answers (it reports the release 4.4.0), not the
 * node's. */
static const char probe_gvisor[] =
	"u = os.uname()\n"
	"probe('gvisor_kernel', u.release == '4.4.0', 'the kernel %s answers, not gVisor (make runsc the node\\'s default-runtime)' % u.release)\n";

static const char *const common_checks[] = {
	"root_readonly", "no_route_out", "no_capabilities", "non_root_user", "tmp_noexec",
	"uid_range",
};
static const char *const runc_checks[] = { "no_new_privileges", "seccomp" };
static const char *const gvisor_checks[] = { "gvisor_kernel" };

char *swarm_nodes_probe_script(bool gvisor, uint32_t uid_first, uint32_t uid_last)
{
	return xasprintf("FIRST, LAST = %u, %u\n%s%s", uid_first, uid_last, probe_common,
			 gvisor ? probe_gvisor : probe_runc);
}

/* NULL when every check said ok, else what each that did not saw, joined
 * by "; ". */
static char *probe_verdict(const char *output, bool gvisor)
{
	const char *const *sets[2] = { common_checks, gvisor ? gvisor_checks : runc_checks };
	size_t counts[2] = { ARRAY_SIZE(common_checks),
			     gvisor ? ARRAY_SIZE(gvisor_checks) : ARRAY_SIZE(runc_checks) };
	char *why = NULL;

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < counts[s]; i++) {
			_cleanup_free_ char *want = xasprintf("%s ok\n", sets[s][i]);
			const char *line = strstr(output, sets[s][i]);
			if (line && strncmp(line, want, strlen(want)) == 0)
				continue;
			char *w = line ? xasprintf("%s%s%.*s", why ? why : "", why ? "; " : "",
						   (int)strcspn(line, "\n"), line)
				       : xasprintf("%s%s%s: no answer", why ? why : "",
						   why ? "; " : "", sets[s][i]);
			free(why);
			why = w;
		}
	}
	return why;
}

struct swarm_nodes *swarm_nodes_new(struct docker *d, const char *label_key,
				    const bool gvisor[TRUST_COUNT],
				    const struct swarm_prober *prober)
{
	struct swarm_nodes *n = xcalloc(1, sizeof(*n));

	n->docker = d;
	n->label_key = xstrdup(label_key);
	memcpy(n->gvisor, gvisor, sizeof(n->gvisor));
	n->prober = *prober;
	pthread_mutex_init(&n->lock, NULL);
	pthread_mutex_init(&n->probing, NULL);
	return n;
}

static void node_clear(struct node *nd)
{
	free(nd->id);
	free(nd->hostname);
	free(nd->state);
	free(nd->availability);
	free(nd->label);
	free(nd->why);
	free(nd->output);
	memset(nd, 0, sizeof(*nd));
}

void swarm_nodes_free(struct swarm_nodes *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		node_clear(&n->nodes[i]);
	free(n->nodes);
	free(n->label_key);
	pthread_mutex_destroy(&n->lock);
	pthread_mutex_destroy(&n->probing);
	free(n);
}

/* The trust level a label's value names: 0, or -1 for another value. */
static int level_named(const char *value, enum trust *t)
{
	for (int i = 0; i < TRUST_COUNT; i++) {
		if (strcmp(value, trust_to_string((enum trust)i)) == 0) {
			*t = (enum trust)i;
			return 0;
		}
	}
	return -1;
}

static struct node *find(struct swarm_nodes *n, const char *id)
{
	for (size_t i = 0; i < n->n; i++)
		if (strcmp(n->nodes[i].id, id) == 0)
			return &n->nodes[i];
	return NULL;
}

/* Merges a fresh list into the table (under lock): a node keeps its probe
 * while its level stays; one whose label changed is probed again. */
static void merge(struct swarm_nodes *n, struct docker_swarm_node *list, size_t count)
{
	for (size_t i = 0; i < n->n; i++)
		n->nodes[i].seen = false;
	for (size_t i = 0; i < count; i++) {
		struct node *nd = find(n, list[i].id);
		if (!nd) {
			n->nodes = xrealloc(n->nodes, (n->n + 1) * sizeof(*n->nodes));
			nd = &n->nodes[n->n++];
			memset(nd, 0, sizeof(*nd));
			nd->id = xstrdup(list[i].id);
		}
		enum trust t = TRUST_TRUSTED;
		bool has = list[i].label && level_named(list[i].label, &t) == 0;
		if (has != nd->has_level || t != nd->trust || !nd->label || !list[i].label ||
		    strcmp(nd->label, list[i].label) != 0) {
			nd->probe = PROBE_NONE;
			free(nd->why);
			nd->why = NULL;
		}
		nd->has_level = has;
		nd->trust = t;
		free(nd->label);
		nd->label = list[i].label ? xstrdup(list[i].label) : NULL;
		free(nd->hostname);
		nd->hostname = xstrdup(list[i].hostname);
		free(nd->state);
		nd->state = xstrdup(list[i].state);
		free(nd->availability);
		nd->availability = xstrdup(list[i].availability);
		/* A node that went down is probed again when it is back: its
		 * daemon may have restarted with other settings. */
		if (strcmp(nd->state, "ready") != 0 && nd->probe == PROBE_OK)
			nd->probe = PROBE_NONE;
		nd->seen = true;
	}
}

static bool usable(const struct node *nd)
{
	return nd->seen && nd->has_level && strcmp(nd->state, "ready") == 0 &&
	       strcmp(nd->availability, "active") == 0;
}

static int refresh(struct swarm_nodes *n, bool force, char **err)
{
	struct docker_swarm_node *list = NULL;
	size_t count = 0;

	pthread_mutex_lock(&n->lock);
	bool fresh = !force && n->listed_ms && monoclock_ms() - n->listed_ms < NODES_REFRESH_MS;
	pthread_mutex_unlock(&n->lock);
	if (fresh)
		return 0;
	if (docker_node_list(n->docker, n->label_key, &list, &count, err) != DOCKER_OK)
		return -EIO;
	pthread_mutex_lock(&n->lock);
	merge(n, list, count);
	n->listed_ms = monoclock_ms();
	pthread_mutex_unlock(&n->lock);
	docker_swarm_nodes_free(list, count);
	return 0;
}

/* Probes, in parallel, every usable node of level t (or of every level)
 * not yet probed. One round at a time; the table's lock is not held while
 * the probes run. */
static void probe_round(struct swarm_nodes *n, enum trust t, bool all_levels)
{
	struct pending { char *id; enum trust trust; void *probe; char *err; } *p = NULL;
	size_t np = 0;

	pthread_mutex_lock(&n->probing);
	pthread_mutex_lock(&n->lock);
	for (size_t i = 0; i < n->n; i++) {
		struct node *nd = &n->nodes[i];
		if (!usable(nd) || nd->probe != PROBE_NONE || (!all_levels && nd->trust != t))
			continue;
		p = xrealloc(p, (np + 1) * sizeof(*p));
		p[np++] = (struct pending){ xstrdup(nd->id), nd->trust, NULL, NULL };
	}
	pthread_mutex_unlock(&n->lock);
	for (size_t i = 0; i < np; i++)
		p[i].probe = n->prober.start(n->prober.arg, p[i].id, p[i].trust, &p[i].err);
	for (size_t i = 0; i < np; i++) {
		char *output = NULL, *why = NULL;
		if (!p[i].probe)
			why = xasprintf("the probe job could not start: %s", p[i].err);
		else if (n->prober.finish(n->prober.arg, p[i].probe, &output, &p[i].err) < 0)
			why = xasprintf("the probe job failed: %s", p[i].err);
		else
			why = probe_verdict(output, n->gvisor[p[i].trust]);
		pthread_mutex_lock(&n->lock);
		struct node *nd = find(n, p[i].id);
		if (nd) {
			nd->probe = why ? PROBE_FAILED : PROBE_OK;
			free(nd->why);
			nd->why = why;
			why = NULL;
			free(nd->output);
			nd->output = output;
			output = NULL;
			if (nd->probe == PROBE_OK)
				log_info("swarm node %s (%s, %s): its probe passed", nd->hostname,
					 nd->id, trust_to_string(nd->trust));
			else
				log_warnx("swarm node %s (%s, %s) is not used: %s", nd->hostname,
					  nd->id, trust_to_string(nd->trust), nd->why);
		}
		pthread_mutex_unlock(&n->lock);
		free(why);
		free(output);
		free(p[i].id);
		free(p[i].err);
	}
	free(p);
	pthread_mutex_unlock(&n->probing);
	if (np && n->prober.done) {
		json_t *report = swarm_nodes_report(n);
		n->prober.done(n->prober.arg, report);
		json_decref(report);
	}
}

int swarm_nodes_place(struct swarm_nodes *n, enum trust t, bool all_levels, bool force,
		      char ***constraints, char **err)
{
	char **c = NULL;
	size_t nc = 0, ok = 0;
	_cleanup_free_ char *why = xstrdup("");

	*constraints = NULL;
	if (refresh(n, force, err) < 0)
		return -EIO;
	probe_round(n, t, all_levels);
	pthread_mutex_lock(&n->lock);
	c = xcalloc(n->n + 2, sizeof(*c));
	c[nc++] = xasprintf("node.labels.%s==%s", n->label_key, trust_to_string(t));
	for (size_t i = 0; i < n->n; i++) {
		struct node *nd = &n->nodes[i];
		if (!nd->has_level || nd->trust != t)
			continue;
		if (usable(nd) && nd->probe == PROBE_OK) {
			ok++;
			continue;
		}
		c[nc++] = xasprintf("node.id!=%s", nd->id);
		char *w = xasprintf("%s%s%s: %s", why, *why ? "; " : "", nd->hostname,
				    !nd->seen ? "gone" : strcmp(nd->state, "ready") != 0 ? nd->state
				    : strcmp(nd->availability, "active") != 0 ? nd->availability
				    : nd->why ? nd->why : "not probed");
		free(why);
		why = w;
	}
	pthread_mutex_unlock(&n->lock);
	if (ok == 0) {
		*err = xasprintf("no swarm node labelled %s=%s may take the run%s%s; label a "
				 "prepared node (docs/SCALING.md)", n->label_key,
				 trust_to_string(t), *why ? ": " : "", why);
		docker_strv_free(c);
		return -ENODEV;
	}
	*constraints = c;
	return 0;
}

bool swarm_nodes_proven(struct swarm_nodes *n, const char *node_id, enum trust t)
{
	pthread_mutex_lock(&n->lock);
	struct node *nd = find(n, node_id);
	bool ok = nd && usable(nd) && nd->trust == t && nd->probe == PROBE_OK;
	pthread_mutex_unlock(&n->lock);
	return ok;
}

bool swarm_nodes_lost(struct swarm_nodes *n, const char *node_id)
{
	char *err = NULL;

	pthread_mutex_lock(&n->lock);
	bool stale = monoclock_ms() - n->listed_ms >= NODES_LOST_CHECK_MS;
	pthread_mutex_unlock(&n->lock);
	/* A manager that does not answer says nothing of the node: the run
	 * waits (its deadline still holds). */
	if (stale && refresh(n, true, &err) < 0) {
		free(err);
		return false;
	}
	pthread_mutex_lock(&n->lock);
	struct node *nd = find(n, node_id);
	bool lost = !nd || !nd->seen || strcmp(nd->state, "ready") != 0;
	pthread_mutex_unlock(&n->lock);
	return lost;
}

char *swarm_nodes_hostname(struct swarm_nodes *n, const char *node_id)
{
	char *h;

	pthread_mutex_lock(&n->lock);
	struct node *nd = find(n, node_id);
	h = xstrdup(nd && nd->hostname && *nd->hostname ? nd->hostname : node_id);
	pthread_mutex_unlock(&n->lock);
	return h;
}

json_t *swarm_nodes_report(struct swarm_nodes *n)
{
	json_t *a = json_array();

	pthread_mutex_lock(&n->lock);
	for (size_t i = 0; i < n->n; i++) {
		const struct node *nd = &n->nodes[i];
		const char *probe = nd->probe == PROBE_OK ? "ok"
				  : nd->probe == PROBE_FAILED ? "failed" : "not probed";
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:s, s:s, s:s, s:o, s:o}",
						   "id", nd->id, "hostname", nd->hostname,
						   "level", nd->has_level
							   ? json_string(trust_to_string(nd->trust))
							   : json_null(),
						   "state", nd->seen ? nd->state : "gone",
						   "availability", nd->availability,
						   "probe", probe,
						   "why", nd->why ? json_string(nd->why) : json_null(),
						   "checks", nd->output ? json_string(nd->output)
									: json_null()));
	}
	pthread_mutex_unlock(&n->lock);
	return a;
}
