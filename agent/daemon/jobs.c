#include "jobs.h"

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <string.h>

#include "fileio.h"
#include "log.h"
#include "strmap.h"

#define JOBS_INDEX_MAX (256u << 20)

/* What is known about one file: at most one running and one queued job. */
struct jobs_slot {
	char *name;
	struct jobs_item *running;
	struct jobs_item *queued;
	struct jobs_slot *next_ready; /* link in the ready FIFO */
	bool ready;
};

struct jobs_final {
	char sha256[HASH_SHA256_HEX_LEN + 1];
	char *state;
	bool held;           /* a held state: hold says who and when */
	struct jobs_hold hold;
};

struct jobs {
	pthread_mutex_t lock;
	pthread_cond_t work;  /* a slot became ready, or stop */
	pthread_cond_t idle;  /* a job finished */
	struct strmap *slots; /* name -> jobs_slot */
	struct jobs_slot *ready_head, *ready_tail;
	struct strmap *finals; /* name -> jobs_final */
	int index_fd;
	char *index_path;
	pthread_t *threads;
	unsigned nthreads;
	bool stopped;
	uint64_t next_id;
	struct jobs_stats stats;
	void (*run)(void *arg, const struct jobs_item *job);
	void (*free_payload)(void *payload);
	void (*accepted)(void *arg, const struct jobs_item *job);
	void *arg;
};

const char *jobs_submit_result_to_string(enum jobs_submit_result r)
{
	switch (r) {
	case JOBS_QUEUED: return "queued";
	case JOBS_REPLACED: return "replaced";
	case JOBS_AFTER_RUNNING: return "after_running";
	case JOBS_DUPLICATE: return "duplicate";
	case JOBS_ALREADY_FINAL: return "already_final";
	case JOBS_STOPPED: return "stopped";
	}
	return "unknown";
}

static void item_free(struct jobs *j, struct jobs_item *it)
{
	if (!it)
		return;
	if (j->free_payload && it->payload)
		j->free_payload(it->payload);
	free(it->name);
	free(it);
}

static void final_free(void *v)
{
	struct jobs_final *f = v;
	free(f->state);
	free(f);
}

static void final_put(struct jobs *j, const char *name, const char *sha, const char *state,
		      const struct jobs_hold *hold)
{
	struct jobs_final *f = xcalloc(1, sizeof(*f));
	snprintf(f->sha256, sizeof(f->sha256), "%s", sha);
	f->state = xstrdup(state);
	if (hold) {
		f->held = true;
		f->hold = *hold;
	}
	strmap_put(j->finals, name, f);
}

static char *index_line(const char *name, const char *sha, const char *state,
			const struct jobs_hold *hold)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "name", name, "sha256", sha, "state", state);
	if (hold) {
		json_object_set_new(o, "uid", json_integer((json_int_t)hold->uid));
		json_object_set_new(o, "held", json_pack("[I, I]", (json_int_t)hold->at.tv_sec,
							 (json_int_t)hold->at.tv_nsec));
	}
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char *line = xasprintf("%s\n", s);
	free(s);
	return line;
}

/* Reads the index (last line per name wins), skipping lines that do not
 * parse: only a crash mid-append makes one, and it can only be the last. */
static int index_load(struct jobs *j)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = fileio_read_path(j->index_path, JOBS_INDEX_MAX, &buf, &len);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (char *line = buf, *end; line < buf + len; line = end + 1) {
		end = memchr(line, '\n', (size_t)(buf + len - line));
		if (!end)
			end = buf + len;
		if (end == line)
			continue;
		json_t *o = json_loadb(line, (size_t)(end - line), 0, NULL);
		const char *name = NULL, *sha = NULL, *state = NULL;
		if (!o || json_unpack(o, "{s:s, s:s, s:s}", "name", &name, "sha256", &sha,
				      "state", &state) < 0 || strlen(sha) != HASH_SHA256_HEX_LEN) {
			log_warnx("%s: skipping unreadable line at byte %zu (a torn write from a "
				  "crash); its file will simply run again", j->index_path,
				  (size_t)(line - buf));
		} else {
			json_int_t uid, sec, nsec;
			struct jobs_hold h;
			bool held = json_unpack(o, "{s:I, s:[I, I]}", "uid", &uid, "held", &sec,
						&nsec) == 0 && uid >= 0 && nsec >= 0 && nsec < 1000000000;
			if (held)
				h = (struct jobs_hold){ .uid = (uid_t)uid,
							.at = { .tv_sec = (time_t)sec, .tv_nsec = (long)nsec } };
			final_put(j, name, sha, state, held ? &h : NULL);
		}
		json_decref(o);
	}
	return 0;
}

struct compact_ctx {
	char *buf;
	size_t len;
};

static void compact_one(const char *name, void *value, void *arg)
{
	struct compact_ctx *c = arg;
	struct jobs_final *f = value;
	_cleanup_free_ char *line = index_line(name, f->sha256, f->state, f->held ? &f->hold : NULL);
	size_t n = strlen(line);
	c->buf = xrealloc(c->buf, c->len + n + 1);
	memcpy(c->buf + c->len, line, n + 1);
	c->len += n;
}

/* Rewrites the index with one line per file, then opens it for appending. */
static int index_open(struct jobs *j)
{
	struct compact_ctx c = { .buf = NULL, .len = 0 };
	int r;

	strmap_foreach(j->finals, compact_one, &c);
	r = fileio_write_atomic(j->index_path, c.buf ? c.buf : "", c.len, 0600);
	free(c.buf);
	if (r < 0)
		return r;
	j->index_fd = open(j->index_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	return j->index_fd < 0 ? -errno : 0;
}

int jobs_record_final(struct jobs *j, const char *name, const char *sha256, const char *state)
{
	return jobs_record_held(j, name, sha256, state, NULL);
}

int jobs_record_held(struct jobs *j, const char *name, const char *sha256, const char *state,
		     const struct jobs_hold *hold)
{
	_cleanup_free_ char *line = index_line(name, sha256, state, hold);
	int r;

	pthread_mutex_lock(&j->lock);
	r = fileio_write_all(j->index_fd, line, strlen(line));
	if (r == 0 && fdatasync(j->index_fd) < 0)
		r = -errno;
	/* In memory even when the disk failed: this run of the agent still
	 * knows; only a restart would run it once more. */
	final_put(j, name, sha256, state, hold);
	pthread_mutex_unlock(&j->lock);
	if (r < 0)
		log_warnx("cannot append to %s: %s", j->index_path, strerror(-r));
	return r;
}

static bool is_final_locked(struct jobs *j, const char *name, const char *sha256, char **state)
{
	struct jobs_final *f = strmap_get(j->finals, name);
	if (!f || strcmp(f->sha256, sha256) != 0)
		return false;
	if (state)
		*state = xstrdup(f->state);
	return true;
}

void jobs_forget(struct jobs *j, const char *name)
{
	pthread_mutex_lock(&j->lock);
	struct jobs_final *f = strmap_take(j->finals, name);
	if (f)
		final_free(f);
	pthread_mutex_unlock(&j->lock);
}

bool jobs_find_hold(struct jobs *j, const char *name, char sha256[HASH_SHA256_HEX_LEN + 1],
		    struct jobs_hold *out)
{
	pthread_mutex_lock(&j->lock);
	struct jobs_final *f = strmap_get(j->finals, name);
	bool r = f && f->held;
	if (r) {
		memcpy(sha256, f->sha256, HASH_SHA256_HEX_LEN + 1);
		*out = f->hold;
	}
	pthread_mutex_unlock(&j->lock);
	return r;
}

bool jobs_is_final(struct jobs *j, const char *name, const char *sha256, char **state)
{
	pthread_mutex_lock(&j->lock);
	bool r = is_final_locked(j, name, sha256, state);
	pthread_mutex_unlock(&j->lock);
	return r;
}

static void ready_push(struct jobs *j, struct jobs_slot *s)
{
	if (s->ready)
		return;
	s->ready = true;
	s->next_ready = NULL;
	if (j->ready_tail)
		j->ready_tail->next_ready = s;
	else
		j->ready_head = s;
	j->ready_tail = s;
	pthread_cond_signal(&j->work);
}

static struct jobs_slot *ready_pop(struct jobs *j)
{
	struct jobs_slot *s = j->ready_head;
	if (!s)
		return NULL;
	j->ready_head = s->next_ready;
	if (!j->ready_head)
		j->ready_tail = NULL;
	s->ready = false;
	return s;
}

static void slot_release_if_empty(struct jobs *j, struct jobs_slot *s)
{
	if (s->running || s->queued || s->ready)
		return;
	strmap_take(j->slots, s->name);
	free(s->name);
	free(s);
}

enum jobs_submit_result jobs_submit(struct jobs *j, const char *name, const char *sha256,
				    bool force, void *payload)
{
	struct jobs_item *it = xcalloc(1, sizeof(*it));
	enum jobs_submit_result r;
	struct jobs_slot *s;

	it->name = xstrdup(name);
	snprintf(it->sha256, sizeof(it->sha256), "%s", sha256);
	it->force = force;
	it->payload = payload;

	pthread_mutex_lock(&j->lock);
	if (j->stopped) {
		r = JOBS_STOPPED;
		goto drop;
	}
	if (!force && is_final_locked(j, name, sha256, NULL)) {
		r = JOBS_ALREADY_FINAL;
		goto drop;
	}
	s = strmap_get(j->slots, name);
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->name = xstrdup(name);
		strmap_put(j->slots, name, s);
	}
	if (s->queued) {
		if (strcmp(s->queued->sha256, sha256) == 0 && s->queued->force >= force) {
			r = JOBS_DUPLICATE;
			goto drop;
		}
		item_free(j, s->queued);
		j->stats.superseded++;
		j->stats.queued--;
		r = JOBS_REPLACED;
	} else if (s->running) {
		if (strcmp(s->running->sha256, sha256) == 0 && !force) {
			r = JOBS_DUPLICATE;
			goto drop;
		}
		r = JOBS_AFTER_RUNNING;
	} else {
		r = JOBS_QUEUED;
	}
	it->id = ++j->next_id;
	s->queued = it;
	j->stats.queued++;
	j->stats.submitted++;
	if (j->accepted)
		j->accepted(j->arg, it);
	if (!s->running)
		ready_push(j, s);
	pthread_mutex_unlock(&j->lock);
	return r;

drop:
	pthread_mutex_unlock(&j->lock);
	item_free(j, it);
	return r;
}

static void *worker_main(void *arg)
{
	struct jobs *j = arg;

	pthread_mutex_lock(&j->lock);
	for (;;) {
		struct jobs_slot *s;
		while (!j->stopped && !j->ready_head)
			pthread_cond_wait(&j->work, &j->lock);
		if (j->stopped)
			break;
		s = ready_pop(j);
		s->running = s->queued;
		s->queued = NULL;
		j->stats.queued--;
		j->stats.running++;

		/* Its content may have got a final result while it waited (the
		 * same content ran just before it). */
		bool skip = !s->running->force &&
			    is_final_locked(j, s->running->name, s->running->sha256, NULL);
		pthread_mutex_unlock(&j->lock);
		if (skip)
			log_debug("job %llu: content already has a final result; not run again",
				  (unsigned long long)s->running->id);
		else
			j->run(j->arg, s->running);
		pthread_mutex_lock(&j->lock);

		item_free(j, s->running);
		s->running = NULL;
		j->stats.running--;
		j->stats.completed++;
		if (s->queued && !j->stopped)
			ready_push(j, s);
		slot_release_if_empty(j, s);
		pthread_cond_broadcast(&j->idle);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

int jobs_new(const struct jobs_options *o, struct jobs **out, char **err)
{
	struct jobs *j = xcalloc(1, sizeof(*j));
	int r;

	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->work, NULL);
	pthread_cond_init(&j->idle, NULL);
	j->slots = strmap_new(NULL);
	j->finals = strmap_new(final_free);
	j->index_fd = -1;
	j->index_path = xasprintf("%s/%s", o->state_dir, JOBS_INDEX_NAME);
	j->run = o->run;
	j->free_payload = o->free_payload;
	j->accepted = o->accepted;
	j->arg = o->arg;

	r = index_load(j);
	if (r == 0)
		r = index_open(j);
	if (r < 0) {
		*err = xasprintf("cannot use the final-results index %s: %s (check "
				 "agent.state_dir in agent.yaml and its permissions)",
				 j->index_path, strerror(-r));
		jobs_free(j);
		return r;
	}
	j->nthreads = o->workers ? o->workers : 1;
	j->stats.workers = j->nthreads;
	j->threads = xcalloc(j->nthreads, sizeof(*j->threads));
	for (unsigned i = 0; i < j->nthreads; i++) {
		r = -pthread_create(&j->threads[i], NULL, worker_main, j);
		if (r < 0) {
			j->nthreads = i;
			*err = xasprintf("cannot start worker thread %u: %s", i, strerror(-r));
			jobs_free(j);
			return r;
		}
	}
	*out = j;
	return 0;
}

void jobs_get_stats(struct jobs *j, struct jobs_stats *out)
{
	pthread_mutex_lock(&j->lock);
	*out = j->stats;
	pthread_mutex_unlock(&j->lock);
}

void jobs_wait_idle(struct jobs *j)
{
	pthread_mutex_lock(&j->lock);
	while (j->stats.queued > 0 || j->stats.running > 0) {
		if (j->stopped && j->stats.running == 0)
			break;
		pthread_cond_wait(&j->idle, &j->lock);
	}
	pthread_mutex_unlock(&j->lock);
}

static void drop_queued(const char *name, void *value, void *arg)
{
	struct jobs *j = arg;
	struct jobs_slot *s = value;
	(void)name;
	if (s->queued) {
		item_free(j, s->queued);
		s->queued = NULL;
		j->stats.queued--;
	}
}

void jobs_stop(struct jobs *j)
{
	pthread_mutex_lock(&j->lock);
	if (j->stopped) {
		pthread_mutex_unlock(&j->lock);
		return;
	}
	j->stopped = true;
	strmap_foreach(j->slots, drop_queued, j);
	pthread_cond_broadcast(&j->work);
	pthread_cond_broadcast(&j->idle);
	pthread_mutex_unlock(&j->lock);
	for (unsigned i = 0; i < j->nthreads; i++)
		pthread_join(j->threads[i], NULL);
	j->nthreads = 0;
}

static void free_slot(const char *name, void *value, void *arg)
{
	struct jobs *j = arg;
	struct jobs_slot *s = value;
	(void)name;
	item_free(j, s->queued);
	item_free(j, s->running);
	free(s->name);
	free(s);
}

void jobs_free(struct jobs *j)
{
	if (!j)
		return;
	jobs_stop(j);
	strmap_foreach(j->slots, free_slot, j);
	strmap_free(j->slots);
	strmap_free(j->finals);
	if (j->index_fd >= 0)
		close(j->index_fd);
	free(j->index_path);
	free(j->threads);
	pthread_cond_destroy(&j->work);
	pthread_cond_destroy(&j->idle);
	pthread_mutex_destroy(&j->lock);
	free(j);
}
