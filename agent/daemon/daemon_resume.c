/* Jobs' progress kept for their retries (daemon_resume.h). */
#include "daemon_resume.h"

#include <pthread.h>
#include <string.h>

#include "macro.h"
#include "strmap.h"

struct daemon_resumes {
	pthread_mutex_t lock;
	struct strmap *by_name; /* name -> struct daemon_progress */
};

void daemon_progress_clear(struct daemon_progress *p)
{
	free(p->seqs);
	json_decref(p->a.json);
	free(p->a.detail);
	approval_clear(&p->answer);
	memset(p, 0, sizeof(*p));
}

static void progress_free(void *v)
{
	daemon_progress_clear(v);
	free(v);
}

struct daemon_resumes *daemon_resumes_new(void)
{
	struct daemon_resumes *r = xcalloc(1, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->by_name = strmap_new(progress_free);
	return r;
}

void daemon_resumes_free(struct daemon_resumes *r)
{
	if (!r)
		return;
	strmap_free(r->by_name);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

void daemon_resumes_keep(struct daemon_resumes *r, const char *name, struct daemon_progress *p)
{
	struct daemon_progress *kept = xmalloc(sizeof(*kept));
	*kept = *p;
	memset(p, 0, sizeof(*p));
	pthread_mutex_lock(&r->lock);
	strmap_put(r->by_name, name, kept);
	pthread_mutex_unlock(&r->lock);
}

void daemon_resumes_drop(struct daemon_resumes *r, const char *name)
{
	pthread_mutex_lock(&r->lock);
	strmap_remove(r->by_name, name);
	pthread_mutex_unlock(&r->lock);
}

bool daemon_resumes_take(struct daemon_resumes *r, const char *name, const char *sha256,
			 struct daemon_progress *out)
{
	pthread_mutex_lock(&r->lock);
	struct daemon_progress *kept = strmap_take(r->by_name, name);
	pthread_mutex_unlock(&r->lock);
	if (!kept)
		return false;
	bool same = strcmp(kept->sha256, sha256) == 0;
	if (same)
		*out = *kept;
	else
		daemon_progress_clear(kept);
	free(kept);
	return same;
}
