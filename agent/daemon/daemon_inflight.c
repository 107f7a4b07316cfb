/* Notes of runs in flight (daemon_inflight.h). */
#include "daemon_inflight.h"

#include <dirent.h>
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

int daemon_inflight_begin(const char *state_dir, uint64_t job, const char *name, const char *sha256,
			  char **err)
{
	char when[40];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	result_format_time(&now, when, sizeof(when));
	json_t *note = json_pack("{s:I, s:s, s:s, s:s}", "job", (json_int_t)job, "file", name, "sha256", sha256,
				 "started", when);
	int r = note_write(state_dir, job, note);
	json_decref(note);
	if (r < 0)
		*err = xasprintf("cannot note the run in %s/" DAEMON_INFLIGHT_DIR ": %s; nothing runs "
				 "without it (check the disk of agent.state_dir)", state_dir, strerror(-r));
	return r;
}

void daemon_inflight_pending(const char *state_dir, uint64_t job, const json_t *fields)
{
	_cleanup_free_ char *path = note_path(state_dir, job), *text = NULL;
	size_t len;
	if (fileio_read_path(path, 1 << 20, &text, &len) < 0)
		return;
	json_t *note = json_loadb(text, len, 0, NULL);
	if (!note)
		return;
	json_object_set(note, "pending", (json_t *)fields);
	if (note_write(state_dir, job, note) < 0)
		log_warnx("%s: cannot keep the run's record in its note; a restart records it as "
			  "interrupted", path);
	json_decref(note);
}

void daemon_inflight_end(const char *state_dir, uint64_t job)
{
	_cleanup_free_ char *path = note_path(state_dir, job);
	if (unlink(path) < 0 && errno != ENOENT)
		log_warn("%s: cannot remove the note of a finished run; the next start records it "
			 "as interrupted", path);
}

void daemon_inflight_sync(const char *state_dir)
{
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

int daemon_inflight_recover(const char *state_dir, const struct daemon_stages *stages, char **err)
{
	_cleanup_free_ char *dir = xasprintf("%s/" DAEMON_INFLIGHT_DIR, state_dir);
	DIR *d = opendir(dir);
	int count = 0, r = 0;
	if (!d) {
		int e = errno;
		if (e == ENOENT)
			return 0;
		*err = xasprintf("cannot read %s, the notes of runs in flight: %s", dir, strerror(e));
		return -e;
	}
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name), *text = NULL;
		size_t len;
		json_t *note = fileio_read_path(path, 1 << 20, &text, &len) == 0 ? json_loadb(text, len, 0, NULL) : NULL;
		const char *file = json_string_value(json_object_get(note, "file"));
		const char *sha = json_string_value(json_object_get(note, "sha256"));
		json_t *job = json_object_get(note, "job");
		if (!file || !sha || !json_is_integer(job)) {
			log_warnx("%s: not a note of a run in flight; left alone", path);
			json_decref(note);
			continue;
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
			count++;
		}
		json_decref(f);
		json_decref(note);
	}
	closedir(d);
	_cleanup_free_ char *inside = xasprintf("%s/.", dir);
	if (count && fileio_fsync_parent(inside) < 0)
		log_warn("%s: cannot sync", dir);
	return r < 0 ? r : count;
}
