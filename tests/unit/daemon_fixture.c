/* The daemon's test fixture: see daemon_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <time.h>

#include "daemon_fixture.h"
#include "fileio.h"
#include "monoclock.h"
#include "testdir.h"


void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

void put(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	assert_int_equal(fileio_write_atomic(p, text, strlen(text), 0644), 0);
}

/* --- the test stage (daemon_fixture.h) --- */

static int marker(const struct intake_snapshot *s, const char *key, int dflt)
{
	const char *p = strstr((const char *)s->data, key);
	return p ? atoi(p + strlen(key)) : dflt;
}

static int stage_assess(void *arg, const char *name, const struct intake_snapshot *snap,
			struct daemon_assessment *out)
{
	struct ctx *c = arg;
	static const char *const levels[] = { "LOW", "MEDIUM", "HIGH", "BLOCKED" };
	pthread_mutex_lock(&c->lock);
	bool fails = c->assess_failures > 0;
	if (fails)
		c->assess_failures--;
	pthread_mutex_unlock(&c->lock);
	/* "# needs image": what the real assessor answers when the engine
	 * lacks the image that reads a PEP 723 block. */
	if (fails && strstr((const char *)snap->data, "# needs image")) {
		out->fail_reason = "sandbox_unavailable";
		out->detail = xstrdup("the PEP 723 block of a.py cannot be read yet: the image "
				      "mai-sandbox-pip:latest that reads it (with tomllib) is "
				      "missing from the engine: build it with "
				      "packaging/sandbox-image/build.sh --variant pip");
		return -ENOENT;
	}
	if (fails)
		return -EIO;
	const char *p = strstr((const char *)snap->data, "# level: ");
	out->level = LEVEL_LOW;
	for (int i = 0; p && i < 4; i++)
		if (strncmp(p + 9, levels[i], strlen(levels[i])) == 0)
			out->level = (enum level)i;
	out->json = json_pack("{s:s}", "level", levels[out->level]);
	pthread_mutex_lock(&c->lock);
	c->assessed++;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* "# sleep: N": the run takes N ms, and stops when the daemon halts it.
 * "# until halted: N": until a run was halted, the run lasts until the
 * daemon halts it (N ms at most, however slow the machine); after that, it
 * ends at once. */
static int stage_execute(void *arg, const char *name, const struct intake_snapshot *snap,
			 const struct daemon_assessment *a, enum trust trust, const atomic_bool *halt,
			 struct daemon_execution *out, char **detail)
{
	struct ctx *c = arg;
	pthread_mutex_lock(&c->lock);
	bool down = c->execute_failures > 0 || (uint64_t)monoclock_ms() < c->down_until_ms;
	if (c->execute_failures > 0)
		c->execute_failures--;
	else if (!down)
		c->executed++;
	pthread_mutex_unlock(&c->lock);
	if (down) {
		*detail = xstrdup("Docker is not reachable at /var/run/docker.sock");
		return -ECONNREFUSED;
	}
	int ms = marker(snap, "# sleep: ", 0);
	pthread_mutex_lock(&c->lock);
	if (c->halted == 0)
		ms = marker(snap, "# until halted: ", ms);
	pthread_mutex_unlock(&c->lock);
	for (; ms > 0; ms -= 10) {
		if (atomic_load(halt)) {
			pthread_mutex_lock(&c->lock);
			c->halted++;
			pthread_mutex_unlock(&c->lock);
			*detail = xstrdup("stopped");
			return -ECANCELED;
		}
		sleep_ms(10);
	}
	out->verdict = RESULT_VERDICT_EXITED;
	out->exit_code = marker(snap, "# exit: ", 0);
	out->json = json_pack("{s:i, s:i}", "exit_code", out->exit_code, "trust", (int)trust);
	return 0;
}

static enum audit_health stage_audit_health(void *arg, char **why)
{
	struct ctx *c = arg;
	pthread_mutex_lock(&c->lock);
	enum audit_health h = c->health;
	const char *said = c->health_why;
	/* As the real log: unwritable from a failed write until one works. */
	if (h == AUDIT_HEALTH_OK && c->last_write_failed) {
		h = AUDIT_HEALTH_UNWRITABLE;
		said = "the last record could not be written: No space left on device";
	}
	*why = h != AUDIT_HEALTH_OK ? xstrdup(said) : NULL;
	pthread_mutex_unlock(&c->lock);
	return h;
}

/* The .audit sidecar as a stand-in: the sequence numbers it would prove. */
static int stage_audit_sidecar(void *arg, const uint64_t *seqs, size_t n, char **text,
			       size_t *len, struct audit_sidecar_info *pos)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)seqs[i]));
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	*text = xasprintf("%s\n", s);
	*len = strlen(*text);
	free(s);
	pos->checkpoint_size = n;
	pos->entry_hash[0] = '\0';
	return 0;
}

/* The records are checked as the real log's event API checks them. */
static int stage_audit(void *arg, enum audit_event e, json_t *fields, uint64_t *seq)
{
	struct ctx *c = arg;
	_cleanup_free_ char *err = NULL;
	if (audit_event_check(e, fields, &err) < 0)
		fail_msg("the daemon wrote a %s record without a field it needs: %s", audit_event_to_string(e), err);
	pthread_mutex_lock(&c->lock);
	int r = c->audit_fails || c->audit_fails_for == (int)e + 1 ? -ENOSPC : 0;
	c->last_write_failed = r < 0;
	if (!r) {
		*seq = ++c->audited;
		json_t *rec = json_deep_copy(fields);
		json_object_set_new(rec, "type", json_string(audit_event_to_string(e)));
		json_object_set_new(rec, "seq", json_integer((json_int_t)*seq));
		json_array_append_new(c->records, rec);
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

static int stage_audit_queue(void *arg, enum audit_event e, json_t *fields, uint64_t *seq,
			     uint64_t *epoch)
{
	*epoch = 0;
	return stage_audit(arg, e, fields, seq);
}

static int stage_audit_sync(void *arg, uint64_t seq, uint64_t epoch)
{
	struct ctx *c = arg;
	pthread_mutex_lock(&c->lock);
	c->synced = seq;
	int r = c->sync_result;
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* The records of type about file, in the order they were appended (a new
 * array). */
json_t *records_of(struct ctx *c, const char *file, const char *type)
{
	json_t *out = json_array(), *rec;
	size_t i;
	pthread_mutex_lock(&c->lock);
	json_array_foreach(c->records, i, rec) {
		if (strcmp(json_string_value(json_object_get(rec, "type")), type) == 0 &&
		    strcmp(json_string_value(json_object_get(rec, "file")), file) == 0)
			json_array_append_new(out, json_deep_copy(rec));
	}
	pthread_mutex_unlock(&c->lock);
	return out;
}

json_int_t num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* --- fixture --- */

int setup(void **state)
{
	if (testdir_setup(state) < 0)
		return -1;
	struct ctx *c = xcalloc(1, sizeof(*c));
	c->root = *state;
	c->drop = xasprintf("%s/drop", c->root);
	c->state = xasprintf("%s/state", c->root);
	c->conf = xasprintf("%s/conf", c->root);
	pthread_mutex_init(&c->lock, NULL);
	c->records = json_array();
	if (mkdir(c->drop, 0755) < 0 || mkdir(c->conf, 0755) < 0)
		return -1;
	_cleanup_free_ char *yaml = xasprintf("drop_dir: %s\nstate_dir: %s\nworkers: 2\n"
					      "settle_delay: 40ms\nmax_file_size: 1m\n"
					      "log_level: warn\n", c->drop, c->state);
	put(c->conf, "agent.yaml", yaml);
	/* Every file here is written by this one uid, approvals too. */
	put(c->conf, "security.yaml", "allow_self_approval: true\n");
	char *err = NULL;
	if (config_load(c->conf, &c->cfg, &err) < 0) {
		fprintf(stderr, "config: %s\n", err);
		return -1;
	}
	c->stages = (struct daemon_stages){ .assess = stage_assess, .execute = stage_execute,
					    .audit = stage_audit, .audit_health = stage_audit_health,
					    .audit_sidecar = stage_audit_sidecar, .ctx = c };
	*state = c;
	return 0;
}

static void *loop_main(void *arg)
{
	daemon_run(arg);
	return NULL;
}

void start(struct ctx *c, bool with_stages)
{
	if (c->queue) {
		c->stages.audit_queue = stage_audit_queue;
		c->stages.audit_sync = stage_audit_sync;
	}
	struct daemon_options o = { .cfg = c->cfg, .stages = with_stages ? &c->stages : NULL,
				    .retry_base_ms = c->retry_base_ms ? c->retry_base_ms : 50 };
	char *err = NULL;
	assert_int_equal(daemon_new(&o, &c->d, &err), 0);
	assert_int_equal(pthread_create(&c->thread, NULL, loop_main, c->d), 0);
}

void stop(struct ctx *c)
{
	if (!c->d)
		return;
	daemon_request_stop(c->d);
	pthread_join(c->thread, NULL);
	daemon_free(c->d);
	c->d = NULL;
}

int teardown(void **state)
{
	struct ctx *c = *state;
	stop(c);
	config_free(c->cfg);
	json_decref(c->records);
	free(c->drop);
	free(c->state);
	free(c->conf);
	*state = c->root;
	free(c);
	return testdir_teardown(state);
}

/* Waits (up to ms) until the sidecar of script says state; returns it. */
json_t *wait_state_for(struct ctx *c, const char *sidecar, const char *state, int ms)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", c->drop, sidecar);
	for (int i = 0; i < ms / 10; i++) {
		json_t *o = json_load_file(path, 0, NULL);
		const char *s = o ? json_string_value(json_object_get(o, "state")) : NULL;
		if (s && strcmp(s, state) == 0)
			return o;
		json_decref(o);
		sleep_ms(10);
	}
	json_t *o = json_load_file(path, 0, NULL);
	fail_msg("%s never reached state %s (now: %s)", sidecar, state,
		 o ? json_string_value(json_object_get(o, "state")) : "no sidecar");
	return NULL;
}

json_t *wait_state(struct ctx *c, const char *sidecar, const char *state)
{
	return wait_state_for(c, sidecar, state, 5000);
}

const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}
