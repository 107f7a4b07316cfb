/* Kept answers (daemon_grant.h): name -> struct daemon_grant. */
#include "daemon_grant.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "strmap.h"

struct daemon_grants {
	pthread_mutex_t lock;
	struct strmap *by_name;
};

static void grant_free(void *grant)
{
	struct daemon_grant *g = grant;
	approval_clear(&g->answer);
	free(g);
}

struct daemon_grants *daemon_grants_new(void)
{
	struct daemon_grants *g = xcalloc(1, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->by_name = strmap_new(grant_free);
	return g;
}

void daemon_grants_free(struct daemon_grants *g)
{
	if (!g)
		return;
	strmap_free(g->by_name);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

void daemon_grants_keep(struct daemon_grants *g, const char *name, const char *sha,
			const struct approval *answer, bool recorded, uint64_t seq)
{
	struct daemon_grant *k = xcalloc(1, sizeof(*k));
	snprintf(k->sha256, sizeof(k->sha256), "%s", sha);
	k->answer = *answer;
	k->answer.reason = answer->reason ? xstrdup(answer->reason) : NULL;
	k->recorded = recorded;
	k->seq = seq;
	pthread_mutex_lock(&g->lock);
	strmap_put(g->by_name, name, k);
	pthread_mutex_unlock(&g->lock);
}

bool daemon_grants_find(struct daemon_grants *g, const char *name, const char *sha,
			struct daemon_grant *out)
{
	bool found = false;
	pthread_mutex_lock(&g->lock);
	struct daemon_grant *k = strmap_get(g->by_name, name);
	if (k && strcmp(k->sha256, sha) == 0) {
		*out = *k;
		out->answer.reason = k->answer.reason ? xstrdup(k->answer.reason) : NULL;
		found = true;
	}
	pthread_mutex_unlock(&g->lock);
	return found;
}

void daemon_grants_drop(struct daemon_grants *g, const char *name)
{
	pthread_mutex_lock(&g->lock);
	strmap_remove(g->by_name, name);
	pthread_mutex_unlock(&g->lock);
}
