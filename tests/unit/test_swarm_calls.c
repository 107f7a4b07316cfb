/* The Swarm engine's calls when the manager answers in ways a healthy
 * swarm does not on demand (swarm.sh runs the engine on a real three-node
 * swarm; a manager that refuses a call it accepted a moment before, a
 * node's log session missing, a log body that is not Docker's frames, a
 * task that will not end are not things a real swarm can be made to do
 * when asked): docker_service_stop, the reading of a run's logs
 * (swarm_logs.c), the stop of a run's tasks and the sweep of an instance's
 * leftovers (swarm_stop.c). The manager is tests/unit/engine_standin.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "docker.h"
#include "docker_swarm.h"
#include "engine_standin.h"
#include "log.h"
#include "sandbox_demux.h"
#include "swarm_supervisor.h"
#include "macro.h"
#include "monoclock.h"
#include "swarm_logs.h"
#include "swarm_stop.h"
#include "testdir.h"

static struct docker *open_standin(struct standin *s, const char *dir,
				   const struct standin_route *routes, size_t n)
{
	struct docker_options o = { 0 };
	struct docker *d = NULL;
	char *err = NULL;

	standin_start(s, dir, routes, n);
	o.socket_path = s->socket_path;
	o.timeout_ms = 5000;
	assert_int_equal(docker_open(&o, &d, &err), 0);
	return d;
}

static const char service[] =
	"{\"ID\":\"svc1\",\"Version\":{\"Index\":7},\"Spec\":{\"Name\":\"mai-run\","
	"\"TaskTemplate\":{\"ContainerSpec\":{\"Image\":\"x\"}}}}";

/* A service the manager no longer knows is stopped: nothing to update. */
static void test_stop_of_a_gone_service(void **state)
{
	const struct standin_route routes[] = {
		ROUTE("GET", "/services/svc1", 404, "{\"message\":\"service svc1 not found\"}"),
	};
	struct standin s;
	struct docker *d = open_standin(&s, *state, routes, ARRAY_SIZE(routes));
	char *err = NULL;

	assert_int_equal(docker_service_stop(d, "svc1", &err), DOCKER_OK);
	assert_null(err);
	assert_int_equal(standin_seen(&s, "POST", "/services/svc1/update"), 0);
	docker_free(d);
	standin_stop(&s);
}

/* The stop's two calls each refused or cut: the caller learns which one
 * and what the manager said; a spec it cannot read is never sent back. */
static void test_stop_refusals(void **state)
{
	static const struct {
		struct standin_route inspect, update;
		enum docker_error e;
		const char *says;
		unsigned updates;
	} cases[] = {
		{ ROUTE("GET", "/services/svc1", 200, "<html>proxy error</html>"), { 0 },
		  DOCKER_ERR_PROTOCOL, "inspect a service", 0 },
		{ ROUTE("GET", "/services/svc1", 200, "{\"ID\":\"svc1\",\"Spec\":{}}"), { 0 },
		  DOCKER_ERR_PROTOCOL, "Version", 0 },
		{ ROUTE("GET", "/services/svc1", 503, "{\"message\":\"rpc error: manager overloaded\"}"),
		  { 0 }, DOCKER_ERR_SERVER,
		  "Docker refused to inspect a service (HTTP 503): rpc error: manager overloaded", 0 },
		{ ROUTE("GET", "/services/svc1", 200, service),
		  ROUTE("POST", "/services/svc1/update", 500, "{\"message\":\"update out of sequence\"}"),
		  DOCKER_ERR_SERVER,
		  "Docker refused to update a service (HTTP 500): update out of sequence", 1 },
		/* The manager gone between the inspect and the update: the
		 * update gets no reply at all. */
		{ ROUTE("GET", "/services/svc1", 200, service), ROUTE("POST", "/services/svc1/update", 0, NULL),
		  DOCKER_ERR_PROTOCOL, "engine.sock", 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct standin_route routes[2] = { cases[i].inspect, cases[i].update };
		struct standin s;
		struct docker *d = open_standin(&s, *state, routes, cases[i].update.method ? 2 : 1);
		char *err = NULL;

		enum docker_error e = docker_service_stop(d, "svc1", &err);
		if (e != cases[i].e || !err || !strstr(err, cases[i].says))
			fail_msg("case %zu: %s (%d), expected '%s' (%d)", i, err, e, cases[i].says,
				 cases[i].e);
		if (standin_seen(&s, "POST", "/services/svc1/update") != cases[i].updates)
			fail_msg("case %zu: %u updates sent, expected %u", i,
				 standin_seen(&s, "POST", "/services/svc1/update"), cases[i].updates);
		free(err);
		docker_free(d);
		standin_stop(&s);
	}
}

struct run_logs {
	int64_t counters[SWARM_COUNTERS_N];
	bool have_counters;
	struct swarm_logs l;
	struct sandbox_demux d;
};

static void run_logs_init(struct run_logs *r, struct docker *d, int64_t cap)
{
	memset(r, 0, sizeof(*r));
	r->l = (struct swarm_logs){ .docker = d, .service_id = "svc1", .name = "mai-run-1",
				    .log_max = cap, .counters = r->counters,
				    .have_counters = &r->have_counters };
	sandbox_demux_init(&r->d, (size_t)cap, (size_t)cap);
}

/* The output of an ended run, whole: stdout and stderr apart, the
 * supervisor's counters line taken out of stderr and read. */
static void test_logs_read_whole(void **state)
{
	static char body[512];
	size_t len = 0;
	len = standin_frame(body, len, DOCKER_LOG_STDOUT, "hello\n");
	len = standin_frame(body, len, DOCKER_LOG_STDERR, "a warning\n");
	len = standin_frame(body, len, DOCKER_LOG_STDERR, SWARM_COUNTERS "0 2 1048576 5000000 3 1\n");
	const struct standin_route routes[] = {
		{ .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = body,
		  .body_len = len },
	};
	struct standin s;
	struct docker *d = open_standin(&s, *state, routes, ARRAY_SIZE(routes));
	struct run_logs r;
	char *err = NULL;

	run_logs_init(&r, d, 4096);
	assert_int_equal(swarm_logs_read_all(r.l, &r.d, NULL, &err), 0);
	assert_null(err);
	assert_string_equal(r.d.out.data, "hello\n");
	assert_string_equal(r.d.err.data, "a warning\n");
	assert_true(r.have_counters);
	assert_int_equal(r.counters[1], 2);
	assert_int_equal(r.counters[2], 1048576);
	assert_int_equal(r.counters[SWARM_TIMED_OUT], 1);
	assert_false(swarm_logs_over_cap(r.l, &r.d));
	sandbox_demux_clear(&r.d);
	docker_free(d);
	standin_stop(&s);
}

/* A node's log session missing for a moment: the swarm writes so among the
 * frames ("Error grabbing logs"); the logs are asked for again and read
 * afresh (not added to what the first read gave), or, when the run is
 * cancelled, the caller learns what the swarm said. */
static void test_logs_incomplete_then_whole(void **state)
{
	static char part[512], whole[512];
	size_t plen = 0, wlen = 0;
	plen = standin_frame(part, plen, DOCKER_LOG_STDOUT, "line 1\n");
	plen = standin_frame(part, plen, DOCKER_LOG_SYSTEM, "Error grabbing logs: rpc error: code = Unknown desc = "
					      "warning: incomplete log stream. some logs could not be "
					      "retrieved for the following reasons: node n2 is not "
					      "available\nmore\n");
	plen = standin_frame(part, plen, DOCKER_LOG_SYSTEM, "Error grabbing logs: a second one\n");
	wlen = standin_frame(whole, wlen, DOCKER_LOG_STDOUT, "line 1\n");
	wlen = standin_frame(whole, wlen, DOCKER_LOG_STDOUT, "line 2\n");
	const struct standin_route routes[] = {
		{ .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = part,
		  .body_len = plen, .times = 2 },
		{ .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = whole,
		  .body_len = wlen },
	};
	struct standin s;
	struct docker *d = open_standin(&s, *state, routes, ARRAY_SIZE(routes));
	struct run_logs r;
	atomic_bool cancel = true;
	char *err = NULL;

	run_logs_init(&r, d, 4096);
	assert_int_equal(swarm_logs_read_all(r.l, &r.d, &cancel, &err), -EAGAIN);
	assert_string_equal(err, "the swarm could not give all of the service's logs: rpc error: "
				 "code = Unknown desc = warning: incomplete log stream. some logs "
				 "could not be retrieved for the following reasons: node n2 is "
				 "not available");
	free(err);
	err = NULL;
	/* What it gave is not taken for the whole output. */
	assert_int_equal(r.d.out.len, 0);

	atomic_store(&cancel, false);
	assert_int_equal(swarm_logs_read_all(r.l, &r.d, &cancel, &err), 0);
	assert_null(err);
	assert_string_equal(r.d.out.data, "line 1\nline 2\n");
	assert_int_equal(standin_seen(&s, "GET", "/services/svc1/logs"), 3);
	sandbox_demux_clear(&r.d);
	docker_free(d);
	standin_stop(&s);
}

/* Logs that cannot be read: the run's error says why; the check of the
 * cap while it runs is not answered "over" by a read that failed. */
static void test_logs_unreadable(void **state)
{
	static const struct {
		struct standin_route route;
		int r;
		const char *says;
	} cases[] = {
		{ ROUTE("GET", "/services/svc1/logs", 200, "plain text, no frames\n"), -EPROTO,
		  "the service's logs are not Docker's multiplexed frames: " },
		{ ROUTE("GET", "/services/svc1/logs", 500,
			"{\"message\":\"rpc error: code = NotFound desc = service svc1 not found\"}"),
		  -EIO, "Docker refused to read a service's logs (HTTP 500): rpc error: code = "
			"NotFound desc = service svc1 not found" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct standin s;
		struct docker *d = open_standin(&s, *state, &cases[i].route, 1);
		struct run_logs r;
		char *err = NULL;

		run_logs_init(&r, d, 16);
		assert_int_equal(swarm_logs_read_all(r.l, &r.d, NULL, &err), cases[i].r);
		if (!err || !strstr(err, cases[i].says))
			fail_msg("case %zu: '%s', expected '%s'", i, err, cases[i].says);
		free(err);
		int saved = testdir_stderr_begin(*state);
		bool over = swarm_logs_over_cap(r.l, &r.d);
		_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
		assert_false(over);
		if (!strstr(logged, "service mai-run-1: its logs so far: ") ||
		    !strstr(logged, cases[i].says))
			fail_msg("case %zu: logged '%s'", i, logged);
		sandbox_demux_clear(&r.d);
		docker_free(d);
		standin_stop(&s);
	}
}

/* A running task's output past the run's cap is seen from its logs. */
static void test_logs_over_cap(void **state)
{
	static char body[512];
	size_t len = 0;
	len = standin_frame(body, len, DOCKER_LOG_STDOUT, "0123456789012345678901234567890123456789\n");
	const struct standin_route routes[] = {
		{ .method = "GET", .path = "/services/svc1/logs", .status = 200, .body = body,
		  .body_len = len },
	};
	struct standin s;
	struct docker *d = open_standin(&s, *state, routes, ARRAY_SIZE(routes));
	struct run_logs r;

	run_logs_init(&r, d, 16);
	assert_true(swarm_logs_over_cap(r.l, &r.d));
	/* The run's own capture is not touched by the look. */
	assert_int_equal(r.d.out.total, 0);
	sandbox_demux_clear(&r.d);
	docker_free(d);
	standin_stop(&s);
}

#define TASKS_OF(id) "/tasks?filters=%7B%22service%22%3A%5B%22" id "%22%5D%7D"

/* A stop the manager refuses, a task that does not end in time, tasks the
 * manager will not list: each service is kept (not known to have ended)
 * and the log says why; a service whose task has ended is stopped. */
static void test_stop_tasks_kept(void **state)
{
	const struct standin_route routes[] = {
		ROUTE("GET", "/services/svcA", 200, service),
		ROUTE("POST", "/services/svcA/update", 500, "{\"message\":\"rpc error: update out of sequence\"}"),
		ROUTE("GET", TASKS_OF("svcA"), 200,
		      "[{\"ID\":\"t1\",\"NodeID\":\"n1\",\"Status\":{\"State\":\"running\"}}]"),
		ROUTE("GET", "/services/svcB", 200, service),
		ROUTE("POST", "/services/svcB/update", 200, "{}"),
		ROUTE("GET", TASKS_OF("svcB"), 500, "{\"message\":\"manager overloaded\"}"),
		ROUTE("GET", "/services/svcC", 200, service),
		ROUTE("POST", "/services/svcC/update", 200, "{}"),
		ROUTE_N("GET", TASKS_OF("svcC"), 200,
			"[{\"ID\":\"t3\",\"NodeID\":\"n1\",\"Status\":{\"State\":\"running\"}}]", 1),
		ROUTE("GET", TASKS_OF("svcC"), 200,
		      "[{\"ID\":\"t3\",\"NodeID\":\"n1\",\"Status\":{\"State\":\"shutdown\"}},"
		      "{\"ID\":\"t4\",\"NodeID\":\"\",\"Status\":{\"State\":\"pending\"}}]"),
	};
	/* svcC first: the wait (300 ms) is for all three together. */
	char *ids[] = { "svcC", "svcA", "svcB" };
	bool stopped[3] = { false, true, true };
	struct standin s;
	struct docker *d = open_standin(&s, *state, routes, ARRAY_SIZE(routes));

	int saved = testdir_stderr_begin(*state);
	size_t running = swarm_stop_tasks(d, ids, 3, 300, stopped);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(running, 2);
	assert_true(stopped[0]);
	assert_false(stopped[1]);
	assert_false(stopped[2]);
	if (!strstr(logged, "stopping service svcA failed: Docker refused to update a service "
			    "(HTTP 500): rpc error: update out of sequence") ||
	    !strstr(logged, "service svcA: its task has not ended on its node 300 ms after its "
			    "stop; the service is kept") ||
	    !strstr(logged, "service svcB: its tasks: Docker refused to list a service's tasks "
			    "(HTTP 500): manager overloaded") ||
	    !strstr(logged, "service svcB: its task has not ended") ||
	    strstr(logged, "service svcC"))
		fail_msg("logged: %s", logged);
	docker_free(d);
	standin_stop(&s);
}

/* The sweep at a start or stop: a service, config or network the manager
 * will not remove is named and left (for the next sweep); a network still
 * in use while its tasks are torn down is asked for again until it goes;
 * services are counted only when removed. */
static void test_sweep_leftovers(void **state)
{
	const struct standin_route routes[] = {
		ROUTE("GET", "/services?filters=", 200, "[{\"ID\":\"svcS\"},{\"ID\":\"svcT\"}]"),
		ROUTE("GET", "/services/svc", 404, "{\"message\":\"not found\"}"),
		ROUTE("GET", "/tasks?filters=", 200, "[]"),
		ROUTE("DELETE", "/services/svcS", 200, "{}"),
		ROUTE("DELETE", "/services/svcT", 500, "{\"message\":\"service svcT is busy\"}"),
		ROUTE("GET", "/configs?filters=", 200, "[{\"ID\":\"cfg1\"}]"),
		ROUTE("DELETE", "/configs/cfg1", 400, "{\"message\":\"config cfg1 is in use\"}"),
		ROUTE("GET", "/networks?filters=", 200, "[{\"Id\":\"net1\"}]"),
		ROUTE_N("DELETE", "/networks/net1", 403,
			"{\"message\":\"error while removing network: network net1 has active endpoints\"}", 2),
		ROUTE("DELETE", "/networks/net1", 204, NULL),
	};
	struct standin s;
	struct docker *d = open_standin(&s, *state, routes, ARRAY_SIZE(routes));
	size_t removed = 0;

	int saved = testdir_stderr_begin(*state);
	swarm_sweep(d, "inst1", &removed);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(removed, 1);
	assert_int_equal(standin_seen(&s, "DELETE", "/networks/net1"), 3);
	if (!strstr(logged, "removing svcT left in the swarm failed: Docker refused to remove a "
			    "Swarm object (HTTP 500): service svcT is busy") ||
	    !strstr(logged, "removing cfg1 left in the swarm failed: Docker refused to remove a "
			    "Swarm object (HTTP 400): config cfg1 is in use") ||
	    strstr(logged, "removing net1"))
		fail_msg("logged: %s", logged);
	docker_free(d);
	standin_stop(&s);
}

/* A manager that lists nothing: the sweep does nothing, says why in the
 * debug log, and removes nothing. */
static void test_sweep_unlisted(void **state)
{
	const struct standin_route routes[] = {
		ROUTE("GET", "/", 503, "{\"message\":\"This node is not a swarm manager.\"}"),
	};
	struct standin s;
	struct docker *d = open_standin(&s, *state, routes, ARRAY_SIZE(routes));
	size_t removed = 0;

	int saved = testdir_stderr_begin(*state);
	swarm_sweep(d, "inst1", &removed);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(removed, 0);
	assert_non_null(strstr(logged, "no sweep of the swarm: Docker refused to list Swarm objects "
				       "(HTTP 503): This node is not a swarm manager."));
	assert_int_equal(standin_seen(&s, "DELETE", "/"), 0);
	docker_free(d);
	standin_stop(&s);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_stop_of_a_gone_service),
		T(test_stop_refusals),
		T(test_logs_read_whole),
		T(test_logs_incomplete_then_whole),
		T(test_logs_unreadable),
		T(test_logs_over_cap),
		T(test_stop_tasks_kept),
		T(test_sweep_leftovers),
		T(test_sweep_unlisted),
	};
	log_init("test_swarm_calls", LOG_LEVEL_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
