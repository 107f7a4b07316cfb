/* The Swarm engine's runs (swarm_engine.c) when the swarm does what a
 * healthy three-node swarm does not on demand (swarm.sh runs the engine for
 * real): a task never placed, placed on a node that has not proven its
 * level, a node lost mid-run, a manager that stops answering, a node that
 * does not report a run's end, output past the cap while it runs or at the
 * end, logs that cannot be read, removals refused, a script too large for
 * a config, every uid in use, probes that fail or do not end. The manager
 * is tests/unit/engine_standin.c: each test opens the engine on a swarm of
 * one node (h1, labelled untrusted) whose probe passes, then answers the
 * run's calls as the case needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "docker_swarm.h"
#include "engine_standin.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "sandbox.h"
#include "sandbox_engine.h"
#include "swarm_engine.h"
#include "testdir.h"

#define PROBE_OK "root_readonly ok\nno_route_out ok\nno_capabilities ok\nnon_root_user ok\n" \
		 "tmp_noexec ok\nuid_range ok\nno_new_privileges ok\nseccomp ok\n"
#define NODE(state) "[{\"ID\":\"n1\",\"Description\":{\"Hostname\":\"h1\"},\"Spec\":{\"Labels\":" \
		    "{\"mai.trust\":\"untrusted\"},\"Availability\":\"active\"},\"Status\":{\"State\":" \
		    "\"" state "\",\"Addr\":\"10.0.0.2\"}}]"
#define TASK(node, state) "[{\"ID\":\"t1\",\"NodeID\":\"" node "\",\"Status\":{\"State\":\"" state \
			  "\",\"Err\":\"no suitable node (1 node not available)\",\"ContainerStatus\":" \
			  "{\"ExitCode\":0}}}]"
#define TASKS "/tasks?filters="

static char probe_logs[512];
static size_t probe_logs_len;

/* What the engine's open asks, and the probe of node n1 (which passes). */
static size_t open_routes(struct standin_route *r)
{
	size_t n = 0;

	r[n++] = (struct standin_route)ROUTE("GET", "/_ping", 200, "OK");
	r[n++] = (struct standin_route)ROUTE("GET", "/version", 200,
					     "{\"Version\":\"20.10.24\",\"ApiVersion\":\"1.41\"}");
	r[n++] = (struct standin_route)ROUTE("GET", "/info", 200,
		"{\"ServerVersion\":\"20.10.24\",\"NCPU\":2,\"MemTotal\":4000000000,\"CgroupVersion\":\"2\","
		"\"Runtimes\":{\"runc\":{\"path\":\"runc\"}},\"Swarm\":{\"LocalNodeState\":\"active\","
		"\"ControlAvailable\":true,\"NodeID\":\"n1\"}}");
	r[n++] = (struct standin_route)ROUTE("GET", "/images/", 200, "{\"Id\":\"sha256:aa\"}");
	r[n++] = (struct standin_route)ROUTE("GET", "/services?filters=", 200, "[]");
	r[n++] = (struct standin_route)ROUTE("GET", "/configs?filters=", 200, "[]");
	r[n++] = (struct standin_route)ROUTE("GET", "/networks?filters=", 200, "[]");
	r[n++] = (struct standin_route)ROUTE("GET", "/nodes", 200, NODE("ready"));
	r[n++] = (struct standin_route)ROUTE("POST", "/configs/create", 201, "{\"ID\":\"cfg1\"}");
	r[n++] = (struct standin_route)ROUTE("POST", "/networks/create", 201, "{\"Id\":\"net1\"}");
	r[n++] = (struct standin_route)ROUTE("POST", "/services/create", 201, "{\"ID\":\"svc1\"}");
	r[n++] = (struct standin_route)ROUTE("GET", "/services/svc1/logs", 200, "");
	r[n++] = (struct standin_route)ROUTE("DELETE", "/", 200, "{}");
	return n;
}

/* The next open's uid_range holds one uid only. */
static bool one_uid;

struct fixture {
	struct standin s;
	struct sandbox_options o;
	void *e;
	struct standin_route routes[STANDIN_MAX_ROUTES];
	size_t n;
};

/* The engine opened on the stand-in; probe: the probe's task and logs
 * routes first (NULL: a probe that passes). */
static void open_engine(struct fixture *f, const char *dir, int64_t placement_ms,
			const struct standin_route *probe, size_t n_probe)
{
	char *err = NULL;

	memset(f, 0, sizeof(*f));
	if (!probe_logs_len)
		probe_logs_len = standin_frame(probe_logs, 0, DOCKER_LOG_STDOUT, PROBE_OK);
	for (size_t i = 0; i < n_probe; i++)
		f->routes[f->n++] = probe[i];
	if (!probe) {
		f->routes[f->n++] = (struct standin_route)ROUTE_N("GET", TASKS, 200,
								  TASK("n1", "complete"), 1);
		f->routes[f->n++] = (struct standin_route){ .method = "GET", .path = "/services/svc1/logs",
							    .status = 200, .body = probe_logs,
							    .body_len = probe_logs_len, .times = 1 };
	}
	f->n += open_routes(f->routes + f->n);
	standin_start(&f->s, dir, f->routes, f->n);
	sandbox_options_defaults(&f->o);
	f->o.socket_path = f->s.socket_path;
	f->o.instance_id = "inst1";
	f->o.engine.probe_timeout_ms = placement_ms;
	for (int t = 0; t < TRUST_COUNT; t++)
		f->o.trust[t].runtime = "runc";
	if (one_uid)
		f->o.uid_last = f->o.uid_first;
	const struct sandbox_engine_setup setup = { .opts = &f->o };
	if (swarm_engine.open(&setup, &f->e, &err) < 0)
		fail_msg("open: %s", err);
}

/* From now on the manager answers with routes (and what open needs). */
static void answer(struct fixture *f, const char *dir, const struct standin_route *routes, size_t n)
{
	standin_stop(&f->s);
	f->n = 0;
	for (size_t i = 0; i < n; i++)
		f->routes[f->n++] = routes[i];
	f->n += open_routes(f->routes + f->n);
	standin_start(&f->s, dir, f->routes, f->n);
}

static void close_engine(struct fixture *f)
{
	swarm_engine.close(f->e);
	standin_stop(&f->s);
}

static struct sandbox_engine_spec spec_of(const char *input, size_t len)
{
	return (struct sandbox_engine_spec){
		.trust = TRUST_UNTRUSTED, .job_label = "job1", .program = "print(1)",
		.limits = { .memory_bytes = 64 << 20, .nano_cpus = 500000000, .pids = 32,
			    .tmpfs_bytes = 1 << 20, .nofile = 64, .fsize_bytes = 1 << 20,
			    .timeout_ms = 10000, .stdout_max = 64, .stderr_max = 64 },
		.host_pids = 32, .core_bytes = 1,
		.input = (const uint8_t *)input, .input_len = len,
	};
}

struct outcome {
	int start;
	enum sandbox_attach_end how;
	int error, read;
	struct sandbox_engine_end end;
	char *start_err;
};

/* One run: start, wait (deadline_ms from now; cancel), read, remove. */
static void run(struct fixture *f, int64_t deadline_ms, bool cancel, struct outcome *o)
{
	struct sandbox_engine_spec spec = spec_of("print(1)\n", 9);
	struct sandbox_engine_started started = { 0 };
	struct sandbox_engine_run *r = NULL;
	struct sandbox_demux d;
	atomic_bool stop = cancel;

	memset(o, 0, sizeof(*o));
	o->start = swarm_engine.start(f->e, &spec, &r, &started, &o->start_err);
	if (o->start < 0)
		return;
	free(started.id);
	sandbox_demux_init(&d, 64, 64);
	const struct sandbox_engine_io io = { .demux = &d, .deadline_ms = monoclock_ms() + deadline_ms,
					      .cancel = &stop };
	o->how = swarm_engine.wait(f->e, r, &io, &o->error);
	o->read = swarm_engine.read(f->e, r, &o->how, &io, &o->end);
	swarm_engine.remove(f->e, r);
	sandbox_demux_clear(&d);
}

static void outcome_clear(struct outcome *o)
{
	sandbox_engine_end_clear(&o->end);
	free(o->start_err);
}

/* A run the agent stops while it waits to be placed: cancelled, its
 * service stopped and removed. */
static void test_cancelled_while_pending(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = {
		ROUTE("GET", TASKS, 200, TASK("", "pending")),
		ROUTE("GET", "/services/svc1$", 200, "{\"ID\":\"svc1\",\"Version\":{\"Index\":3},\"Spec\":{}}"),
		ROUTE("POST", "/services/svc1/update", 200, "{}"),
	};

	open_engine(&f, *state, 5000, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	run(&f, 10000, true, &o);
	assert_int_equal(o.start, 0);
	if (o.how != SANDBOX_ATTACH_CANCELLED)
		fail_msg("%d %d %s", o.how, o.error, o.end.err);
	assert_int_equal(o.read, 0);
	assert_true(o.end.killed);
	assert_int_equal(standin_seen(&f.s, "POST", "/services/svc1/update"), 1);
	assert_int_equal(standin_seen(&f.s, "DELETE", "/services/svc1"), 1);
	outcome_clear(&o);
	close_engine(&f);
}

/* No node takes the run within engine.probe_timeout: an error that says
 * what the task's state and the swarm's reason were. */
static void test_never_placed(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = { ROUTE("GET", TASKS, 200, TASK("", "pending")) };

	open_engine(&f, *state, 300, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	run(&f, 10000, false, &o);
	assert_int_equal(o.how, SANDBOX_ATTACH_ERROR);
	assert_int_equal(o.error, -ETIMEDOUT);
	assert_int_equal(o.read, -EIO);
	assert_string_equal(o.end.err, "no node started the run within 300 ms (task pending: no "
				       "suitable node (1 node not available))");
	outcome_clear(&o);
	close_engine(&f);
}

/* The swarm placed the run on a node that has not proven the level (a
 * label changed since the agent looked): stopped there, an error that
 * says so, to run again. */
static void test_placed_on_an_unproven_node(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = {
		ROUTE_N("GET", TASKS, 200, TASK("n9", "running"), 1),
		ROUTE("GET", TASKS, 200, TASK("n9", "shutdown")),
		ROUTE("GET", "/services/svc1$", 404, "{\"message\":\"gone\"}"),
	};

	open_engine(&f, *state, 5000, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	run(&f, 10000, false, &o);
	assert_int_equal(o.how, SANDBOX_ATTACH_ERROR);
	assert_int_equal(o.error, -EPERM);
	assert_non_null(strstr(o.end.err, "the swarm placed the run on node n9, which has not proven "
					  "the settings of trust level untrusted"));
	outcome_clear(&o);
	close_engine(&f);
}

/* The manager stops answering about the task: asked again until the
 * placement time is up, then an error. */
static void test_manager_silent(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = {
		ROUTE("GET", TASKS, 503, "{\"message\":\"rpc error: raft: no leader\"}"),
	};

	open_engine(&f, *state, 300, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	int saved = testdir_stderr_begin(*state);
	run(&f, 10000, false, &o);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(o.how, SANDBOX_ATTACH_ERROR);
	assert_int_equal(o.error, -EIO);
	assert_non_null(strstr(o.end.err, "Docker refused to list a service's tasks (HTTP 503): rpc "
					  "error: raft: no leader"));
	assert_non_null(strstr(logged, "asking again"));
	outcome_clear(&o);
	close_engine(&f);
}

/* A node that goes down while the run is on it: the run is lost, an
 * error that names the node, to run again elsewhere. */
static void test_node_lost(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = {
		ROUTE("GET", TASKS, 200, TASK("n1", "running")),
		ROUTE_N("GET", "/nodes", 200, NODE("ready"), 1),
		ROUTE("GET", "/nodes", 200, NODE("down")),
	};

	open_engine(&f, *state, 5000, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	run(&f, 10000, false, &o);
	assert_int_equal(o.how, SANDBOX_ATTACH_ERROR);
	assert_int_equal(o.error, -EHOSTDOWN);
	assert_string_equal(o.end.err, "node h1 went down while the run was running there; it runs "
				       "again on another node");
	assert_string_equal(o.end.node, "h1");
	outcome_clear(&o);
	close_engine(&f);
}

/* A running task whose node does not report its end: the agent stops it
 * engine.probe_timeout after the deadline, saying so. (The stand-in's
 * task has no node: its stop is not waited for.) */
static void test_end_not_reported(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = {
		ROUTE("GET", TASKS, 200, TASK("", "running")),
		ROUTE("GET", "/services/svc1$", 200, "{\"ID\":\"svc1\",\"Version\":{\"Index\":3},\"Spec\":{}}"),
		ROUTE("POST", "/services/svc1/update", 200, "{}"),
	};

	open_engine(&f, *state, 300, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	int saved = testdir_stderr_begin(*state);
	run(&f, 100, false, &o);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(o.how, SANDBOX_ATTACH_DEADLINE);
	assert_int_equal(o.read, 0);
	assert_true(o.end.killed);
	assert_int_equal(o.end.code, 137);
	assert_non_null(strstr(logged, "its node has not reported the end of a run 300 ms after its "
				       "deadline; the agent stops it"));
	assert_int_equal(standin_seen(&f.s, "POST", "/services/svc1/update"), 1);
	outcome_clear(&o);
	close_engine(&f);
}

static char big_logs[512];
static size_t big_logs_len;

/* Output past the cap (64 bytes) while the run goes on: it is stopped
 * at the next look at its logs; at the end: read as over the cap. */
static void test_output_over_the_cap(void **state)
{
	big_logs_len = standin_frame(big_logs, 0, DOCKER_LOG_STDOUT,
			     "0123456789012345678901234567890123456789012345678901234567890123456789\n"
			     "0123456789012345678901234567890123456789012345678901234567890123456789\n");
	static const char *const states[] = { "running", "complete" };
	for (size_t i = 0; i < ARRAY_SIZE(states); i++) {
		struct fixture f;
		struct outcome o;
		const struct standin_route routes[] = {
			ROUTE("GET", TASKS, 200, i ? TASK("n1", "complete") : TASK("", "running")),
			{ .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = big_logs,
			  .body_len = big_logs_len },
			ROUTE("GET", "/services/svc1$", 200, "{\"ID\":\"svc1\",\"Version\":{\"Index\":3},\"Spec\":{}}"),
			ROUTE("POST", "/services/svc1/update", 200, "{}"),
		};

		open_engine(&f, *state, 5000, NULL, 0);
		answer(&f, *state, routes, ARRAY_SIZE(routes));
		run(&f, 10000, false, &o);
		if (o.how != SANDBOX_ATTACH_OUTPUT_LIMIT)
			fail_msg("%s: %d (%s)", states[i], o.how, o.end.err);
		assert_true(o.end.killed);
		outcome_clear(&o);
		close_engine(&f);
	}
}

/* An ended run whose logs cannot be read: an error that says why. */
static void test_logs_unreadable_at_the_end(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = {
		ROUTE("GET", TASKS, 200, TASK("n1", "complete")),
		ROUTE("GET", "/services/svc1/logs", 500, "{\"message\":\"node n1 is unavailable\"}"),
	};

	open_engine(&f, *state, 5000, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	run(&f, 10000, false, &o);
	assert_int_equal(o.how, SANDBOX_ATTACH_ERROR);
	assert_int_equal(o.error, -EPROTO);
	assert_string_equal(o.end.err, "Docker refused to read a service's logs (HTTP 500): node n1 "
				       "is unavailable");
	outcome_clear(&o);
	close_engine(&f);
}

/* A script larger than a Swarm config, and a run when every uid of the
 * range is taken: refused before anything is made. */
static void test_start_refusals(void **state)
{
	struct fixture f;
	char *err = NULL;
	size_t big_len = 600u << 10;
	_cleanup_free_ char *big = xcalloc(1, big_len);
	struct sandbox_engine_spec spec = spec_of(big, big_len);
	struct sandbox_engine_started started = { 0 };
	struct sandbox_engine_run *r = (void *)1, *first = NULL;

	open_engine(&f, *state, 5000, NULL, 0);
	assert_int_equal(swarm_engine.start(f.e, &spec, &r, &started, &err), -EFBIG);
	assert_null(r);
	assert_string_equal(err, "the script is too large for a Swarm config (614400 bytes with its "
				 "header; Swarm keeps at most 512000)");
	free(err);
	err = NULL;
	close_engine(&f);

	/* One uid: the first run holds it. */
	one_uid = true;
	open_engine(&f, *state, 5000, NULL, 0);
	one_uid = false;
	spec = spec_of("print(1)\n", 9);
	assert_int_equal(swarm_engine.start(f.e, &spec, &first, &started, &err), 0);
	free(started.id);
	assert_int_equal(swarm_engine.start(f.e, &spec, &r, &started, &err), -EAGAIN);
	assert_string_equal(err, "every uid of the sandbox's uid_range is in use by a run (1): widen "
				 "it in config/sandbox.yaml");
	free(err);
	swarm_engine.remove(f.e, first);
	close_engine(&f);
}

/* A run's removal refused: the service's named in the log (its uid stays
 * taken), the config's in the debug log, the network asked for again. */
static void test_removal_refused(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route routes[] = {
		ROUTE("GET", TASKS, 200, TASK("n1", "complete")),
		ROUTE("DELETE", "/services/", 500, "{\"message\":\"raft: no leader\"}"),
		ROUTE("DELETE", "/configs/", 500, "{\"message\":\"config is in use\"}"),
		ROUTE_N("DELETE", "/networks/", 403, "{\"message\":\"network has active endpoints\"}", 2),
	};

	open_engine(&f, *state, 5000, NULL, 0);
	answer(&f, *state, routes, ARRAY_SIZE(routes));
	int saved = testdir_stderr_begin(*state);
	run(&f, 10000, false, &o);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(o.how, SANDBOX_ATTACH_EOF);
	assert_int_equal(o.end.code, 0);
	if (!strstr(logged, "failed: Docker refused to remove a Swarm object (HTTP 500): raft: no leader") ||
	    !strstr(logged, "failed: Docker refused to remove a Swarm object (HTTP 500): config is in "
			    "use (swept later)"))
		fail_msg("logged: %s", logged);
	assert_int_equal(standin_seen(&f.s, "DELETE", "/networks/net1"), 3);
	outcome_clear(&o);
	close_engine(&f);
}

/* Probes that fail: a job that exits non-zero (its stderr, on one line,
 * says why), one that does not end in time, one that cannot start; the
 * node is not used, and the report says why. */
static void test_probes_failing(void **state)
{
	static char failed_logs[256];
	size_t failed_len = standin_frame(failed_logs, 0, DOCKER_LOG_STDERR, "Traceback\nboom\n");
	const struct {
		struct standin_route probe[2];
		const char *why;
	} cases[] = {
		{ { ROUTE_N("GET", TASKS, 200, "[{\"ID\":\"t1\",\"NodeID\":\"n1\",\"Status\":{\"State\":"
					      "\"failed\",\"ContainerStatus\":{\"ExitCode\":1}}}]", 1),
		    { .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = failed_logs,
		      .body_len = failed_len, .times = 1 } },
		  "the probe job failed: it exited with status 1: Traceback boom " },
		{ { ROUTE("GET", TASKS, 200, TASK("", "running")),
		    ROUTE("POST", "/services/svc1/update", 200, "{}") },
		  "the probe job failed: it did not end in time (deadline)" },
		{ { ROUTE("POST", "/configs/create", 500, "{\"message\":\"raft: no leader\"}") },
		  "the probe job could not start: Docker refused to create a config (HTTP 500): raft: "
		  "no leader" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fixture f;
		size_t n = cases[i].probe[1].method ? 2 : 1;
		const struct standin_route probe[3] = {
			cases[i].probe[0], cases[i].probe[1],
			ROUTE("GET", "/services/svc1$", 200, "{\"ID\":\"svc1\",\"Version\":{\"Index\":3},\"Spec\":{}}"),
		};
		int saved = testdir_stderr_begin(*state);
		open_engine(&f, *state, 300, probe, n == 2 ? 3 : 1);
		_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
		json_t *nodes = swarm_engine.nodes(f.e);
		const char *why = json_string_value(json_object_get(json_array_get(nodes, 0), "why"));
		if (!why || !strstr(why, cases[i].why))
			fail_msg("case %zu: why '%s'; logged %s", i, why, logged);
		assert_string_equal(json_string_value(json_object_get(json_array_get(nodes, 0), "probe")),
				    "failed");
		json_decref(nodes);
		close_engine(&f);
	}
}

/* A manager that will not list its nodes: a run cannot be placed (said);
 * a run under way is not taken for lost because of it. */
static void test_node_list_refused(void **state)
{
	struct fixture f;
	struct outcome o;
	const struct standin_route refused[] = {
		ROUTE("GET", "/nodes", 503, "{\"message\":\"rpc error: raft: no leader\"}"),
	};

	open_engine(&f, *state, 5000, NULL, 0);
	answer(&f, *state, refused, ARRAY_SIZE(refused));
	run(&f, 10000, false, &o);
	assert_int_equal(o.start, -EIO);
	assert_string_equal(o.start_err, "Docker refused to list the swarm's nodes (HTTP 503): rpc "
					 "error: raft: no leader");
	outcome_clear(&o);

	/* Listed for the placement, then refused while the run goes on (past
	 * the lost-node check's second): the run ends as it would. */
	const struct standin_route later[] = {
		ROUTE_N("GET", "/nodes", 200, NODE("ready"), 1),
		ROUTE("GET", "/nodes", 503, "{\"message\":\"rpc error: raft: no leader\"}"),
		ROUTE_N("GET", TASKS, 200, TASK("n1", "running"), 12),
		ROUTE("GET", TASKS, 200, TASK("n1", "complete")),
	};
	answer(&f, *state, later, ARRAY_SIZE(later));
	run(&f, 10000, false, &o);
	assert_int_equal(o.start, 0);
	assert_int_equal(o.how, SANDBOX_ATTACH_EOF);
	assert_int_equal(o.end.code, 0);
	assert_true(standin_seen(&f.s, "GET", "/nodes") >= 2);
	outcome_clear(&o);
	close_engine(&f);
}

/* A node whose label names no trust level is not used, and the report
 * says it has no level; the other node serves. */
static void test_label_naming_no_level(void **state)
{
	struct fixture f;
	const struct standin_route nodes[] = {
		ROUTE("GET", "/nodes", 200, "[{\"ID\":\"n2\",\"Description\":{\"Hostname\":\"h2\"},"
					    "\"Spec\":{\"Labels\":{\"mai.trust\":\"trusty\"},\"Availability\":"
					    "\"active\"},\"Status\":{\"State\":\"ready\"}},"
					    "{\"ID\":\"n1\",\"Description\":{\"Hostname\":\"h1\"},\"Spec\":"
					    "{\"Labels\":{\"mai.trust\":\"untrusted\"},\"Availability\":"
					    "\"active\"},\"Status\":{\"State\":\"ready\"}}]"),
		ROUTE_N("GET", TASKS, 200, TASK("n1", "complete"), 1),
	};
	/* The options of an open; then the engine opened again on the list
	 * above. */
	open_engine(&f, *state, 5000, NULL, 0);
	swarm_engine.close(f.e);
	standin_stop(&f.s);
	struct standin_route routes[STANDIN_MAX_ROUTES];
	size_t n = 0;
	routes[n++] = nodes[0];
	routes[n++] = nodes[1];
	routes[n++] = (struct standin_route){ .method = "GET", .path = "/services/svc1/logs",
					      .status = 200, .body = probe_logs,
					      .body_len = probe_logs_len, .times = 1 };
	n += open_routes(routes + n);
	standin_start(&f.s, *state, routes, n);
	f.o.socket_path = f.s.socket_path;
	const struct sandbox_engine_setup setup = { .opts = &f.o };
	char *err = NULL;
	if (swarm_engine.open(&setup, &f.e, &err) < 0)
		fail_msg("open: %s", err);
	json_t *report = swarm_engine.nodes(f.e);
	json_t *n2 = json_array_get(report, 0), *n1 = json_array_get(report, 1);
	assert_string_equal(json_string_value(json_object_get(n2, "id")), "n2");
	assert_true(json_is_null(json_object_get(n2, "level")));
	assert_string_equal(json_string_value(json_object_get(n2, "probe")), "not probed");
	assert_string_equal(json_string_value(json_object_get(n1, "probe")), "ok");
	json_decref(report);
	close_engine(&f);
}

/* network: allowlist on Swarm: the proxy image missing on the manager
 * refuses the open (with the build step); a run whose proxy cannot be
 * made (its network not inspectable) is refused with the manager's words,
 * before its own service. */
static void test_allowlist_proxy_refused(void **state)
{
	static const char *const hosts[] = { "pypi.org" };
	struct fixture f;
	char *err = NULL;

	open_engine(&f, *state, 5000, NULL, 0);
	swarm_engine.close(f.e);
	f.o.trust[TRUST_UNTRUSTED].network_allowlist = true;
	f.o.network.allowed_hosts = hosts;
	f.o.network.n_hosts = 1;
	f.o.network.proxy_port = 3128;
	const struct standin_route no_image[] = {
		ROUTE("GET", "/images/mai-sandbox-proxy", 404, "{\"message\":\"no such image\"}"),
	};
	answer(&f, *state, no_image, ARRAY_SIZE(no_image));
	f.o.socket_path = f.s.socket_path;
	const struct sandbox_engine_setup setup = { .opts = &f.o };
	assert_int_equal(swarm_engine.open(&setup, &f.e, &err), -ENOENT);
	assert_null(f.e);
	assert_non_null(strstr(err, "network: allowlist on Swarm needs mai-sandbox-proxy:latest on "
				    "every node of its levels"));
	free(err);
	err = NULL;

	/* The images there: it opens; a run's proxy network refused. */
	const struct standin_route probe[] = {
		ROUTE_N("GET", TASKS, 200, TASK("n1", "complete"), 1),
		{ .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = probe_logs,
		  .body_len = probe_logs_len, .times = 1 },
		ROUTE("GET", "/networks/net1", 404, "{\"message\":\"network net1 not found\"}"),
	};
	answer(&f, *state, probe, ARRAY_SIZE(probe));
	f.o.socket_path = f.s.socket_path;
	if (swarm_engine.open(&setup, &f.e, &err) < 0)
		fail_msg("open: %s", err);
	assert_true(swarm_engine.info(f.e)->network);
	struct sandbox_engine_spec spec = spec_of("print(1)\n", 9);
	struct sandbox_engine_started started = { 0 };
	struct sandbox_engine_run *r = (void *)1;
	spec.network = true;
	assert_int_equal(swarm_engine.start(f.e, &spec, &r, &started, &err), -EIO);
	assert_null(r);
	assert_string_equal(err, "Docker refused to inspect the network (HTTP 404): network net1 not found");
	free(err);
	/* The probe's service and the proxy's own: none for the run. */
	assert_int_equal(standin_seen(&f.s, "POST", "/services/create"), 1);
	close_engine(&f);
}

/* A sandbox on the Swarm engine without an allowlist level has no pip
 * image to read a PEP 723 block with: said, with the setting to change. */
static void test_no_pip_image_without_allowlist(void **state)
{
	struct fixture f;
	struct sandbox *sb = NULL;
	json_t *table = (void *)1;
	char *err = NULL;

	/* The options of an open; the sandbox opens its own engine (its
	 * probe answered again). */
	open_engine(&f, *state, 5000, NULL, 0);
	swarm_engine.close(f.e);
	const struct standin_route probe[] = {
		ROUTE_N("GET", TASKS, 200, TASK("n1", "complete"), 1),
		{ .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = probe_logs,
		  .body_len = probe_logs_len, .times = 1 },
	};
	answer(&f, *state, probe, ARRAY_SIZE(probe));
	f.o.socket_path = f.s.socket_path;
	f.o.engine.ops = &swarm_engine;
	if (sandbox_new(&f.o, &sb, &err) < 0)
		fail_msg("sandbox_new: %s", err);
	assert_int_equal(sandbox_parse_toml(sb, "x = 1\n", 6, &table, &err), -ENOENT);
	assert_string_equal(err, "the swarm engine has the pip image that reads PEP 723 blocks only "
				 "when a trust level has network: allowlist: set one in "
				 "config/sandbox.yaml and restart the agent");
	free(err);
	sandbox_free(sb);
	standin_stop(&f.s);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_cancelled_while_pending),
		T(test_never_placed),
		T(test_placed_on_an_unproven_node),
		T(test_manager_silent),
		T(test_node_lost),
		T(test_end_not_reported),
		T(test_output_over_the_cap),
		T(test_logs_unreadable_at_the_end),
		T(test_start_refusals),
		T(test_removal_refused),
		T(test_probes_failing),
		T(test_node_list_refused),
		T(test_label_naming_no_level),
		T(test_allowlist_proxy_refused),
		T(test_no_pip_image_without_allowlist),
	};
	log_init("test_swarm_engine", LOG_LEVEL_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
