#include "jobs.h"

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <string.h>

#include "fileio.h"
#include "log.h"
#include "strmap.h"

#define JOBS_INDEX_MAX (256u << 20)

/* One writer's share: its ready files in order, and how many jobs it has
 * queued or running (for the cap). Kept until jobs_free(). */
struct jobs_owner {
	uid_t uid;
	unsigned active;
	struct jobs_slot *head, *tail; /* its ready slots, oldest first */
	unsigned n_ready;
	struct jobs_owner *next_turn;  /* link in the ring of writers with ready slots */
	bool in_ring;
};

/* What is known about one file: at most one running and one queued job. */
struct jobs_slot {
	char *name;
	struct jobs_item *running;
	struct jobs_item *queued;
	struct jobs_slot *next_ready; /* link in its owner's ready FIFO */
	struct jobs_owner *ready_in;  /* whose FIFO it is in; NULL: not ready */
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
	struct strmap *owners; /* "<uid>" -> jobs_owner */
	/* The writers with a ready slot, the next to take a turn first. */
	struct jobs_owner *ring_head, *ring_tail;
	unsigned max_per_owner;
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
	case JOBS_OVER_CAP: return "over_cap";
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

static struct jobs_owner *owner_get(struct jobs *j, uid_t uid)
{
	char key[24];
	snprintf(key, sizeof(key), "%lu", (unsigned long)uid);
	struct jobs_owner *o = strmap_get(j->owners, key);
	if (!o) {
		o = xcalloc(1, sizeof(*o));
		o->uid = uid;
		strmap_put(j->owners, key, o);
	}
	return o;
}

static void ring_append(struct jobs *j, struct jobs_owner *o)
{
	o->in_ring = true;
	o->next_turn = NULL;
	if (j->ring_tail)
		j->ring_tail->next_turn = o;
	else
		j->ring_head = o;
	j->ring_tail = o;
	j->stats.writers_waiting++;
}

static void ring_remove(struct jobs *j, struct jobs_owner *o)
{
	struct jobs_owner **pp = &j->ring_head, *prev = NULL;
	while (*pp && *pp != o) {
		prev = *pp;
		pp = &(*pp)->next_turn;
	}
	if (!*pp)
		return;
	*pp = o->next_turn;
	if (j->ring_tail == o)
		j->ring_tail = prev;
	o->in_ring = false;
	o->next_turn = NULL;
	j->stats.writers_waiting--;
}

/* s's queued job becomes ready: at the end of its writer's FIFO, and the
 * writer in the ring if it was not. */
static void ready_push(struct jobs *j, struct jobs_slot *s)
{
	if (s->ready_in)
		return;
	struct jobs_owner *o = owner_get(j, s->queued->owner);
	s->ready_in = o;
	s->next_ready = NULL;
	if (o->tail)
		o->tail->next_ready = s;
	else
		o->head = s;
	o->tail = s;
	o->n_ready++;
	if (!o->in_ring)
		ring_append(j, o);
	pthread_cond_signal(&j->work);
}

/* Takes s out of its writer's FIFO (its queued job was replaced by
 * another writer's). */
static void ready_remove(struct jobs *j, struct jobs_slot *s)
{
	struct jobs_owner *o = s->ready_in;
	if (!o)
		return;
	struct jobs_slot **pp = &o->head, *prev = NULL;
	while (*pp && *pp != s) {
		prev = *pp;
		pp = &(*pp)->next_ready;
	}
	if (*pp) {
		*pp = s->next_ready;
		if (o->tail == s)
			o->tail = prev;
		o->n_ready--;
	}
	s->ready_in = NULL;
	s->next_ready = NULL;
	if (o->n_ready == 0)
		ring_remove(j, o);
}

/* The next turn: the oldest ready slot of the writer at the head of the
 * ring, who goes to the ring's end if it has more. */
static struct jobs_slot *ready_pop(struct jobs *j)
{
	struct jobs_owner *o = j->ring_head;
	if (!o)
		return NULL;
	struct jobs_slot *s = o->head;
	o->head = s->next_ready;
	if (!o->head)
		o->tail = NULL;
	o->n_ready--;
	s->ready_in = NULL;
	s->next_ready = NULL;
	ring_remove(j, o);
	if (o->n_ready > 0)
		ring_append(j, o);
	return s;
}

/* How many queued jobs start before s's, as things stand: the ring serves
 * each writer's k-th ready job in round k, writers in ring order; -1 when
 * s is not ready (it waits for its file's running job). */
static long jobs_ahead(const struct jobs *j, const struct jobs_slot *s)
{
	const struct jobs_owner *mine = s->ready_in;
	long k = 0, ahead = 0;
	bool passed = false;

	if (!mine)
		return -1;
	for (const struct jobs_slot *t = mine->head; t && t != s; t = t->next_ready)
		k++;
	for (const struct jobs_owner *o = j->ring_head; o; o = o->next_turn) {
		if (o == mine) {
			ahead += k;
			passed = true;
			continue;
		}
		long rounds = passed ? k : k + 1;
		ahead += (long)o->n_ready < rounds ? (long)o->n_ready : rounds;
	}
	return ahead;
}

static void slot_release_if_empty(struct jobs *j, struct jobs_slot *s)
{
	if (s->running || s->queued || s->ready_in)
		return;
	strmap_take(j->slots, s->name);
	free(s->name);
	free(s);
}

static void owner_done(struct jobs *j, uid_t uid)
{
	struct jobs_owner *o = owner_get(j, uid);
	if (o->active > 0)
		o->active--;
}

void jobs_set_max_per_owner(struct jobs *j, unsigned max)
{
	pthread_mutex_lock(&j->lock);
	j->max_per_owner = max;
	pthread_mutex_unlock(&j->lock);
}

unsigned jobs_owner_active(struct jobs *j, uid_t owner)
{
	pthread_mutex_lock(&j->lock);
	unsigned n = owner_get(j, owner)->active;
	pthread_mutex_unlock(&j->lock);
	return n;
}

enum jobs_submit_result jobs_submit(struct jobs *j, const char *name, const char *sha256,
				    bool force, void *payload)
{
	return jobs_submit_by(j, name, sha256, force, 0, payload);
}

enum jobs_submit_result jobs_submit_by(struct jobs *j, const char *name, const char *sha256,
				       bool force, uid_t owner, void *payload)
{
	struct jobs_item *it = xcalloc(1, sizeof(*it));
	enum jobs_submit_result r;
	struct jobs_slot *s;

	it->name = xstrdup(name);
	snprintf(it->sha256, sizeof(it->sha256), "%s", sha256);
	it->force = force;
	it->owner = owner;
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
	if (s && s->queued && strcmp(s->queued->sha256, sha256) == 0 && s->queued->force >= force) {
		r = JOBS_DUPLICATE;
		goto drop;
	}
	if (s && !s->queued && s->running && strcmp(s->running->sha256, sha256) == 0 && !force) {
		r = JOBS_DUPLICATE;
		goto drop;
	}
	/* The cap: a job that takes the place of the writer's own queued one
	 * adds nothing to its share. */
	struct jobs_owner *o = owner_get(j, owner);
	bool replaces_own = s && s->queued && s->queued->owner == owner;
	if (j->max_per_owner && !replaces_own && o->active >= j->max_per_owner) {
		j->stats.over_cap++;
		r = JOBS_OVER_CAP;
		goto drop;
	}
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->name = xstrdup(name);
		strmap_put(j->slots, name, s);
	}
	if (s->queued) {
		if (s->queued->owner != owner)
			ready_remove(j, s);
		owner_done(j, s->queued->owner);
		item_free(j, s->queued);
		j->stats.superseded++;
		j->stats.queued--;
		r = JOBS_REPLACED;
	} else if (s->running) {
		r = JOBS_AFTER_RUNNING;
	} else {
		r = JOBS_QUEUED;
	}
	it->id = ++j->next_id;
	s->queued = it;
	o->active++;
	j->stats.queued++;
	j->stats.submitted++;
	if (!s->running)
		ready_push(j, s);
	it->ahead = jobs_ahead(j, s);
	/* Under the lock: no worker takes it before its "queued" answer. */
	if (j->accepted)
		j->accepted(j->arg, it);
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
		while (!j->stopped && !j->ring_head)
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

		owner_done(j, s->running->owner);
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
	j->owners = strmap_new(free);
	j->max_per_owner = o->max_per_owner;
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
		ready_remove(j, s);
		owner_done(j, s->queued->owner);
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
	strmap_free(j->owners);
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
