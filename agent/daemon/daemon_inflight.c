/* Notes of runs in flight (daemon_inflight.h). */
#include "daemon_inflight.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "names.h"

static char *note_path(const char *state_dir, uint64_t job)
{
	return xasprintf("%s/" DAEMON_INFLIGHT_DIR "/%020" PRIu64 ".json", state_dir, job);
}

static int note_write(const char *state_dir, uint64_t job, json_t *note)
{
	_cleanup_free_ char *dir = xasprintf("%s/" DAEMON_INFLIGHT_DIR, state_dir);
	_cleanup_free_ char *path = note_path(state_dir, job);
	_cleanup_free_ char *text = json_dumps(note, JSON_COMPACT | JSON_SORT_KEYS);
	int r = fileio_mkdir_p(dir, 0700);
	return r < 0 ? r : fileio_write_atomic(path, text, strlen(text), 0600);
}

/* A worker thread's slot: one file of SLOT_SIZE bytes, made (and synced,
 * with its directory) at the thread's first run, then rewritten in place:
 * the note of each run is one write and one fdatasync of blocks the file
 * already has, where a new file costs two syncs, each a journal commit.
 * A write cut short by a crash leaves no run unrecorded: the begin's is
 * done before the container gets the script, the end's after the run's
 * record is durable; a pending record never goes in place. At the thread's
 * end an idle slot is removed. */
#define SLOT_SIZE 4096
#define SLOT_PREFIX "slot-"

struct slot {
	int fd;        /* -1: none yet */
	char *path;
	uint64_t job;  /* the run it notes; 0: idle */
	bool dirty;    /* an idle write not yet synced */
	bool unlinked; /* a per-job note removed and its directory not yet synced */
};

static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

static void slot_free(void *arg)
{
	struct slot *sl = arg;
	if (sl->fd >= 0) {
		if (sl->job == 0 && unlink(sl->path) < 0 && errno != ENOENT)
			log_warn("%s: cannot remove", sl->path);
		close(sl->fd);
	}
	free(sl->path);
	free(sl);
}

static void slot_key_make(void)
{
	if (pthread_key_create(&slot_key, slot_free) != 0)
		abort(); /* start-up: no key, no threads to serve either */
}

static struct slot *slot_of_thread(void)
{
	pthread_once(&slot_once, slot_key_make);
	struct slot *sl = pthread_getspecific(slot_key);
	if (!sl) {
		sl = xcalloc(1, sizeof(*sl));
		sl->fd = -1;
		if (pthread_setspecific(slot_key, sl) != 0)
			abort();
	}
	return sl;
}

/* text padded with spaces to the slot's size, written over it. */
static int slot_put(struct slot *sl, const char *text)
{
	char buf[SLOT_SIZE];
	size_t len = strlen(text);
	memcpy(buf, text, len);
	memset(buf + len, ' ', SLOT_SIZE - len);
	buf[SLOT_SIZE - 1] = '\n';
	return fileio_pwrite_all(sl->fd, buf, SLOT_SIZE, 0);
}

/* The thread's slot file, made the first time (idle, synced). */
static int slot_open(struct slot *sl, const char *state_dir)
{
	_cleanup_free_ char *dir = xasprintf("%s/" DAEMON_INFLIGHT_DIR, state_dir);
	_cleanup_free_ char *path = xasprintf("%s/" SLOT_PREFIX "%d.json", dir, (int)gettid());
	int r;

	if (sl->fd >= 0 && strncmp(sl->path, dir, strlen(dir)) == 0)
		return 0;
	if (sl->fd >= 0)
		return -EXDEV; /* another state directory (tests): per-job notes there */
	if ((r = fileio_mkdir_p(dir, 0700)) < 0)
		return r;
	sl->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (sl->fd < 0)
		return -errno;
	sl->path = steal_pointer(&path);
	if ((r = slot_put(sl, "{}")) < 0 || (fsync(sl->fd) < 0 && (r = -errno)) ||
	    (r = fileio_fsync_parent(sl->path)) < 0) {
		unlink(sl->path);
		close(sl->fd);
		sl->fd = -1;
		free(steal_pointer(&sl->path));
		return r;
	}
	return 0;
}

/* Notes the run in the thread's slot: 0, or -errno when it cannot (then a
 * per-job note is written instead). */
static int slot_begin(struct slot *sl, const char *state_dir, uint64_t job, const char *text)
{
	int r;

	if (sl->job || strlen(text) >= SLOT_SIZE - 1)
		return -ENOSPC;
	if ((r = slot_open(sl, state_dir)) < 0)
		return r;
	if ((r = slot_put(sl, text)) < 0 || (fdatasync(sl->fd) < 0 && (r = -errno))) {
		/* What the slot holds now is not known: not used again. */
		close(sl->fd);
		sl->fd = -1;
		free(steal_pointer(&sl->path));
		return r;
	}
	sl->job = job;
	sl->dirty = false;
	return 0;
}

/* The slot is idle again; synced by daemon_inflight_sync(). */
static void slot_end(struct slot *sl)
{
	sl->job = 0;
	if (slot_put(sl, "{}") < 0) {
		log_warn("%s: cannot mark the slot of a finished run idle; the next start records "
			 "its run as interrupted", sl->path);
		close(sl->fd);
		sl->fd = -1;
		free(steal_pointer(&sl->path));
		return;
	}
	sl->dirty = true;
}

int daemon_inflight_begin(const char *state_dir, uint64_t job, const char *name, const char *sha256,
			  char **err)
{
	char when[40];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	result_format_time(&now, when, sizeof(when));
	json_t *note = json_pack("{s:I, s:s, s:s, s:s}", "job", (json_int_t)job, "file", name, "sha256", sha256,
				 "started", when);
	_cleanup_free_ char *text = json_dumps(note, JSON_COMPACT | JSON_SORT_KEYS);
	int r = text && slot_begin(slot_of_thread(), state_dir, job, text) == 0 ? 0 :
		note_write(state_dir, job, note);
	json_decref(note);
	if (r < 0)
		*err = xasprintf("cannot note the run in %s/" DAEMON_INFLIGHT_DIR ": %s; nothing runs "
				 "without it (check the disk of agent.state_dir)", state_dir, strerror(-r));
	return r;
}

/* The note of job: the thread's slot's text, or its own file's. */
static json_t *note_read(const char *state_dir, uint64_t job, bool *in_slot)
{
	struct slot *sl = slot_of_thread();
	_cleanup_free_ char *path = NULL, *text = NULL;
	size_t len;

	*in_slot = sl->fd >= 0 && sl->job == job;
	path = *in_slot ? xstrdup(sl->path) : note_path(state_dir, job);
	if (fileio_read_path(path, 1 << 20, &text, &len) < 0)
		return NULL;
	return json_loadb(text, len, 0, NULL);
}

void daemon_inflight_pending(const char *state_dir, uint64_t job, const json_t *fields)
{
	bool in_slot;
	json_t *note = note_read(state_dir, job, &in_slot);
	if (!note)
		return;
	json_object_set(note, "pending", (json_t *)fields);
	/* Into the note's own file, never in place: a crash while it is
	 * written leaves the slot's note (an interrupted run) at worst. */
	if (note_write(state_dir, job, note) < 0) {
		_cleanup_free_ char *path = note_path(state_dir, job);
		log_warnx("%s: cannot keep the run's record in its note; a restart records it as "
			  "interrupted", path);
	} else if (in_slot) {
		/* The slot goes idle once the note's file is durable; a crash in
		 * between leaves both, which the next start takes as one. */
		struct slot *sl = slot_of_thread();
		slot_end(sl);
		if (sl->fd >= 0 && fdatasync(sl->fd) == 0)
			sl->dirty = false;
	}
	json_decref(note);
}

void daemon_inflight_end(const char *state_dir, uint64_t job)
{
	struct slot *sl = slot_of_thread();
	if (sl->fd >= 0 && sl->job == job) {
		slot_end(sl);
		return;
	}
	_cleanup_free_ char *path = note_path(state_dir, job);
	if (unlink(path) < 0 && errno != ENOENT)
		log_warn("%s: cannot remove the note of a finished run; the next start records it "
			 "as interrupted", path);
	else
		sl->unlinked = true;
}

void daemon_inflight_sync(const char *state_dir)
{
	struct slot *sl = slot_of_thread();
	if (sl->dirty && sl->fd >= 0) {
		if (fdatasync(sl->fd) < 0)
			log_warn("%s: cannot sync the end of a run's note", sl->path);
		sl->dirty = false;
	}
	if (!sl->unlinked)
		return;
	sl->unlinked = false;
	_cleanup_free_ char *inside = xasprintf("%s/" DAEMON_INFLIGHT_DIR "/.", state_dir);
	if (fileio_fsync_parent(inside) < 0)
		log_warn("%s: cannot sync the removal of a note", inside);
}

/* The record of the run in note: what it kept, or that it was cut short. */
static json_t *record_of(const json_t *note)
{
	json_t *pending = json_object_get(note, "pending");
	if (json_is_object(pending)) {
		json_t *f = json_deep_copy(pending);
		json_object_set_new(f, "recorded_late", json_true());
		return f;
	}
	const char *started = json_string_value(json_object_get(note, "started"));
	return json_pack("{s:s, s:s, s:s, s:s?}", "verdict", "interrupted", "reason", "agent_killed", "detail",
			 "the agent ended (killed, or the machine went down) while the script ran; "
			 "what it did is not known; it runs again", "started", started);
}

static bool is_slot(const char *name)
{
	return strncmp(name, SLOT_PREFIX, strlen(SLOT_PREFIX)) == 0;
}

/* Records the run note (read from path) was left for, and removes path.
 * A slot's note of a job in done[] (a crash between its pending record's
 * own file and the slot's idle write) is that job's again: only removed.
 * 1 when recorded, 0 when there was nothing to record, -errno with *err. */
static int recover_one(const char *path, bool slot, const struct daemon_stages *stages, uint64_t *done,
		       size_t *n_done, char **err)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	json_t *note = fileio_read_path(path, 1 << 20, &text, &len) == 0 ? json_loadb(text, len, 0, NULL) : NULL;
	const char *file = json_string_value(json_object_get(note, "file"));
	const char *sha = json_string_value(json_object_get(note, "sha256"));
	json_t *job = json_object_get(note, "job");
	int r = 0;

	if (!file || !sha || !json_is_integer(job)) {
		/* An idle slot, or one whose write a crash cut short: no run
		 * began or ended unrecorded (slot_begin, slot_end). */
		if (slot && json_is_object(note) && json_object_size(note) == 0)
			r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
		else if (slot && (r = unlink(path) < 0 && errno != ENOENT ? -errno : 0) == 0)
			log_warnx("%s: a slot cut short while written; no run was left unrecorded by it", path);
		else
			log_warnx("%s: not a note of a run in flight; left alone", path);
		json_decref(note);
		if (r < 0)
			log_warn("%s: cannot remove", path);
		return 0;
	}
	uint64_t j = (uint64_t)json_integer_value(job);
	for (size_t i = 0; slot && i < *n_done; i++) {
		if (done[i] == j) {
			json_decref(note);
			if (unlink(path) < 0)
				log_warn("%s: cannot remove", path);
			return 0;
		}
	}
	json_t *f = record_of(note);
	json_object_set_new(f, "file", json_string(file));
	json_object_set_new(f, "sha256", json_string(sha));
	json_object_set(f, "job", job);
	uint64_t seq;
	r = stages && stages->audit ? stages->audit(stages->ctx, AUDIT_EVENT_EXECUTION, f, &seq) : 0;
	if (r < 0) {
		*err = xasprintf("cannot record the run of %s that the last agent left in flight (%s): %s; "
				 "nothing runs until it is recorded", file, path, strerror(-r));
	} else {
		_cleanup_free_ char *p = names_printable(file);
		log_warnx("%s: its run was in flight when the last agent ended: recorded as %s", p,
			  json_string_value(json_object_get(f, "verdict")));
		if (unlink(path) < 0)
			log_warn("%s: cannot remove", path);
		done[(*n_done)++] = j;
		r = 1;
	}
	json_decref(f);
	json_decref(note);
	return r;
}

int daemon_inflight_recover(const char *state_dir, const struct daemon_stages *stages, char **err)
{
	_cleanup_free_ char *dir = xasprintf("%s/" DAEMON_INFLIGHT_DIR, state_dir);
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0, n_done = 0;
	int count = 0, r = 0;
	bool removed = false;
	if (!d) {
		int e = errno;
		if (e == ENOENT)
			return 0;
		*err = xasprintf("cannot read %s, the notes of runs in flight: %s", dir, strerror(e));
		return -e;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (n == cap)
			names = xrealloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	_cleanup_free_ uint64_t *done = xcalloc(n ? n : 1, sizeof(*done));
	/* The notes' own files first, then the slots (recover_one). */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; r >= 0 && i < n; i++) {
			if (is_slot(names[i]) != (pass == 1))
				continue;
			_cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
			r = recover_one(path, pass == 1, stages, done, &n_done, err);
			count += r > 0;
			removed = true;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	_cleanup_free_ char *inside = xasprintf("%s/.", dir);
	if (removed && fileio_fsync_parent(inside) < 0)
		log_warn("%s: cannot sync", dir);
	return r < 0 ? r : count;
}
