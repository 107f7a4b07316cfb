/* docker_codec over replies recorded from Docker 20.10 (trimmed to the fields
 * that matter) and over malformed or wrong-shape replies. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "docker_codec.h"
#include "macro.h"

#define LEN(s) (sizeof(s) - 1)

static const char info_reply[] =
	"{\"ID\":\"X\",\"Containers\":3,\"ServerVersion\":\"20.10.24+dfsg1\",\"CgroupDriver\":\"cgroupfs\","
	"\"CgroupVersion\":\"1\",\"MemoryLimit\":true,\"SwapLimit\":true,\"PidsLimit\":true,"
	"\"NCPU\":2,\"MemTotal\":25276026880,\"DefaultRuntime\":\"runc\","
	"\"Runtimes\":{\"io.containerd.runc.v2\":{\"path\":\"runc\"},\"runc\":{\"path\":\"runc\"}},"
	"\"SecurityOptions\":[\"name=seccomp,profile=default\"]}";

static void test_info_recorded(void **state)
{
	struct docker_info i;
	char *err = NULL;

	assert_int_equal(docker_codec_parse_info(info_reply, LEN(info_reply), &i, &err), DOCKER_OK);
	assert_string_equal(i.server_version, "20.10.24+dfsg1");
	assert_int_equal(i.cgroup_version, 1);
	assert_string_equal(i.cgroup_driver, "cgroupfs");
	assert_int_equal(i.n_runtimes, 2);
	assert_true(docker_info_has_runtime(&i, "runc"));
	assert_false(docker_info_has_runtime(&i, "runsc"));
	assert_int_equal(i.ncpu, 2);
	assert_int_equal(i.mem_total, 25276026880LL);
	assert_true(i.memory_limit && i.swap_limit && i.pids_limit && i.seccomp);
	assert_false(i.userns);
	docker_info_clear(&i);
	/* A daemon with userns-remap says so among its security options. */
	static const char remapped[] =
		"{\"ID\":\"X\",\"Containers\":0,\"ServerVersion\":\"24.0.5\",\"CgroupDriver\":\"systemd\","
		"\"CgroupVersion\":\"2\",\"NCPU\":2,\"MemTotal\":1024,\"DefaultRuntime\":\"runc\","
		"\"Runtimes\":{\"runc\":{\"path\":\"runc\"}},"
		"\"SecurityOptions\":[\"name=seccomp,profile=builtin\",\"name=userns\"]}";
	assert_int_equal(docker_codec_parse_info(remapped, LEN(remapped), &i, &err), DOCKER_OK);
	assert_true(i.userns && i.seccomp);
	docker_info_clear(&i);
}

struct bad_case {
	const char *name;
	const char *body;
	const char *message; /* expected *err, exactly */
};

static const char suffix[] = "; is the engine a Docker 20.10 or newer (API v1.41)?";

static void check_bad(const struct bad_case *c,
		      enum docker_error (*parse)(const struct bad_case *, char **))
{
	char *err = NULL;
	char *want = NULL;

	assert_int_equal(parse(c, &err), DOCKER_ERR_PROTOCOL);
	assert_non_null(err);
	if (strncmp(c->message, "Docker's", 8) == 0)
		want = strdup(c->message);
	else if (asprintf(&want, "%s%s", c->message, suffix) < 0)
		fail();
	if (strcmp(err, want) != 0)
		fail_msg("case %s: got '%s', want '%s'", c->name, err, want);
	free(want);
	free(err);
}

static enum docker_error parse_info(const struct bad_case *c, char **err)
{
	struct docker_info i;
	enum docker_error e = docker_codec_parse_info(c->body, strlen(c->body), &i, err);

	/* On failure nothing is left allocated and the struct is zeroed. */
	assert_null(i.server_version);
	assert_null(i.runtimes);
	return e;
}

static void test_info_bad(void **state)
{
	static const struct bad_case cases[] = {
		{ "not json", "<html>", "Docker's reply to info is not JSON (line 1 column 1: "
					"'[' or '{' expected near '<'): <html>" },
		{ "truncated", "{\"ServerVersion\":\"20", "Docker's reply to info is not JSON "
		  "(line 1 column 20: premature end of input near '\"20'): {\"ServerVersion\":\"20" },
		{ "array", "[]", "unexpected Docker reply to info: the reply is not a JSON object" },
		{ "no version", "{\"NCPU\":2}",
		  "unexpected Docker reply to info: ServerVersion is missing (expected a string)" },
		{ "ncpu string", "{\"ServerVersion\":\"x\",\"NCPU\":\"2\",\"MemTotal\":1,\"Runtimes\":{}}",
		  "unexpected Docker reply to info: NCPU is not an integer" },
		{ "runtimes array", "{\"ServerVersion\":\"x\",\"NCPU\":2,\"MemTotal\":1,\"Runtimes\":[]}",
		  "unexpected Docker reply to info: Runtimes is not an object" },
		{ "cgroup 3", "{\"ServerVersion\":\"x\",\"NCPU\":2,\"MemTotal\":1,\"Runtimes\":{},"
			      "\"CgroupVersion\":\"3\"}",
		  "unexpected Docker reply to info: CgroupVersion is neither \"1\" nor \"2\"" },
		{ "bool as int", "{\"ServerVersion\":\"x\",\"NCPU\":2,\"MemTotal\":1,\"PidsLimit\":1,"
				 "\"Runtimes\":{}}",
		  "unexpected Docker reply to info: PidsLimit is not a boolean" },
		{ "duplicate key", "{\"ServerVersion\":\"x\",\"ServerVersion\":\"y\"}",
		  "Docker's reply to info is not JSON (line 1 column 36: duplicate object key near "
		  "'\"ServerVersion\"'): {\"ServerVersion\":\"x\",\"ServerVersion\":\"y\"}" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_bad(&cases[i], parse_info);
}

static enum docker_error parse_container(const struct bad_case *c, char **err)
{
	struct docker_container_state s;
	return docker_codec_parse_container(c->body, strlen(c->body), &s, err);
}

static void test_container_inspect(void **state)
{
	static const char ok[] = "{\"Id\":\"abc\",\"State\":{\"Status\":\"exited\",\"Running\":false,"
				 "\"Paused\":false,\"OOMKilled\":true,\"Dead\":false,\"Pid\":0,"
				 "\"ExitCode\":137,\"Error\":\"\"}}";
	static const struct bad_case cases[] = {
		{ "no state", "{\"Id\":\"abc\"}",
		  "unexpected Docker reply to container inspect: State is missing (expected an object)" },
		{ "state string", "{\"State\":\"exited\"}",
		  "unexpected Docker reply to container inspect: State is not an object" },
		{ "exit code float", "{\"State\":{\"Status\":\"exited\",\"Running\":false,"
				     "\"OOMKilled\":false,\"ExitCode\":1.5}}",
		  "unexpected Docker reply to container inspect: ExitCode is not an integer" },
		{ "no OOMKilled", "{\"State\":{\"Status\":\"exited\",\"Running\":false,\"ExitCode\":1}}",
		  "unexpected Docker reply to container inspect: OOMKilled is missing (expected true or false)" },
	};
	struct docker_container_state s;
	char *err = NULL;

	assert_int_equal(docker_codec_parse_container(ok, LEN(ok), &s, &err), DOCKER_OK);
	assert_string_equal(s.status, "exited");
	assert_true(s.oom_killed);
	assert_false(s.running);
	assert_int_equal(s.exit_code, 137);
	docker_container_state_clear(&s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_bad(&cases[i], parse_container);
}

static void test_create_wait_list_image(void **state)
{
	static const char created[] = "{\"Id\":\"e90e34656806e90e34656806e90e34656806e90e34656806"
				      "e90e34656806abcd\",\"Warnings\":[]}";
	static const char short_id[] = "{\"Id\":\"e90e\"}";
	static const char waited[] = "{\"Error\":null,\"StatusCode\":3}";
	static const char wait_err[] = "{\"Error\":{\"Message\":\"container gone\"},\"StatusCode\":-1}";
	static const char list[] = "[{\"Id\":\"a1\",\"Names\":[\"/x\"]},{\"Id\":\"b2\"}]";
	static const char list_bad[] = "[{\"Id\":7}]";
	static const char image[] = "{\"Id\":\"sha256:7950e3ce\",\"Size\":100,\"Os\":\"linux\","
				    "\"Architecture\":\"amd64\"}";
	static const char image_bad[] = "{\"Id\":\"7950e3ce\"}";
	struct docker_image img;
	char *err = NULL, *id = NULL, **ids = NULL;
	int64_t code;
	size_t n;

	assert_int_equal(docker_codec_parse_create(created, LEN(created), &id, &err), DOCKER_OK);
	assert_int_equal(strlen(id), 64);
	free(id);
	assert_int_equal(docker_codec_parse_create(short_id, LEN(short_id), &id, &err),
			 DOCKER_ERR_PROTOCOL);
	assert_null(id);
	assert_non_null(strstr(err, "Id is not a 64-digit container id"));
	free(err);

	assert_int_equal(docker_codec_parse_wait(waited, LEN(waited), &code, &err), DOCKER_OK);
	assert_int_equal(code, 3);
	assert_int_equal(docker_codec_parse_wait(wait_err, LEN(wait_err), &code, &err),
			 DOCKER_ERR_SERVER);
	assert_string_equal(err, "waiting for the container failed: container gone");
	free(err);
	/* An Error without a message, or with an empty one, is Docker's way of
	 * saying there was none: the exit status stands. */
	static const char *const no_error[] = {
		"{\"StatusCode\":4,\"Error\":{\"Message\":\"\"}}",
		"{\"StatusCode\":4,\"Error\":{}}",
		"{\"StatusCode\":4,\"Error\":null}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(no_error); i++) {
		err = NULL;
		code = 0;
		assert_int_equal(docker_codec_parse_wait(no_error[i], strlen(no_error[i]), &code, &err),
				 DOCKER_OK);
		assert_int_equal(code, 4);
		assert_null(err);
	}

	assert_int_equal(docker_codec_parse_list(list, LEN(list), &ids, &n, &err), DOCKER_OK);
	assert_int_equal(n, 2);
	assert_string_equal(ids[0], "a1");
	assert_string_equal(ids[1], "b2");
	assert_null(ids[2]);
	docker_strv_free(ids);
	assert_int_equal(docker_codec_parse_list(list_bad, LEN(list_bad), &ids, &n, &err),
			 DOCKER_ERR_PROTOCOL);
	assert_null(ids);
	assert_non_null(strstr(err, "container list: an entry has no string Id"));
	free(err);

	assert_int_equal(docker_codec_parse_image(image, LEN(image), &img, &err), DOCKER_OK);
	assert_string_equal(img.id, "sha256:7950e3ce");
	assert_int_equal(img.size, 100);
	docker_image_clear(&img);
	assert_int_equal(docker_codec_parse_image(image_bad, LEN(image_bad), &img, &err),
			 DOCKER_ERR_PROTOCOL);
	assert_non_null(strstr(err, "Id does not start with sha256:"));
	free(err);
}

/* Every other parser refuses a reply of the wrong shape with a message that
 * names the field, and leaves nothing allocated. */
static enum docker_error parse_any(const struct bad_case *c, char **err)
{
	const char *b = c->body;
	size_t len = strlen(b);
	enum docker_error e;

	switch (c->name[0]) {
	case 'w': { /* wait */
		int64_t code;
		return docker_codec_parse_wait(b, len, &code, err);
	}
	case 'v': { /* version */
		struct docker_version v;
		e = docker_codec_parse_version(b, len, &v, err);
		assert_null(v.version);
		return e;
	}
	case 'n': { /* network inspect */
		struct docker_network n;
		e = docker_codec_parse_network(b, len, &n, err);
		assert_null(n.id);
		assert_null(n.subnet);
		return e;
	}
	case 'N': { /* network create */
		char *id = NULL;
		e = docker_codec_parse_network_create(b, len, &id, err);
		assert_null(id);
		return e;
	}
	case 'i': { /* image */
		struct docker_image img;
		e = docker_codec_parse_image(b, len, &img, err);
		assert_null(img.id);
		return e;
	}
	case 's': { /* stats */
		struct docker_stats st;
		return docker_codec_parse_stats(b, len, &st, err);
	}
	case 'l': { /* list */
		char **ids = NULL;
		size_t n;
		e = docker_codec_parse_list(b, len, &ids, &n, err);
		assert_null(ids);
		return e;
	}
	case 'c': { /* container inspect */
		struct docker_container_state st;
		return docker_codec_parse_container(b, len, &st, err);
	}
	case 'I': { /* info */
		struct docker_info i;
		e = docker_codec_parse_info(b, len, &i, err);
		assert_null(i.runtimes);
		return e;
	}
	}
	fail_msg("case %s: no parser for it", c->name);
	return DOCKER_OK;
}

static void test_other_replies_bad(void **state)
{
	static const struct bad_case cases[] = {
		{ "wait: not json", "nope", "Docker's reply to container wait is not JSON (line 1 "
					    "column 4: '[' or '{' expected near 'nope'): nope" },
		{ "wait: no code", "{\"Error\":null}",
		  "unexpected Docker reply to container wait: StatusCode is missing (expected an integer)" },
		{ "wait: error string", "{\"StatusCode\":1,\"Error\":\"x\"}",
		  "unexpected Docker reply to container wait: Error is not {\"Message\": string}" },
		{ "wait: message number", "{\"StatusCode\":1,\"Error\":{\"Message\":5}}",
		  "unexpected Docker reply to container wait: Error is not {\"Message\": string}" },
		{ "version: array", "[]", "unexpected Docker reply to version: the reply is not a JSON object" },
		{ "version: no api", "{\"Version\":\"20.10\"}",
		  "unexpected Docker reply to version: ApiVersion is missing (expected a string)" },
		{ "version: os number", "{\"Version\":\"20.10\",\"ApiVersion\":\"1.41\",\"Os\":1}",
		  "unexpected Docker reply to version: Os is not a string" },
		{ "network: not json", "{", "Docker's reply to network inspect is not JSON (line 1 column 1: "
					   "string or '}' expected near end of file): {" },
		{ "network: no name", "{\"Id\":\"n1\"}",
		  "unexpected Docker reply to network inspect: Name is missing (expected a string)" },
		{ "network: internal string", "{\"Id\":\"n1\",\"Name\":\"x\",\"Internal\":\"yes\"}",
		  "unexpected Docker reply to network inspect: Internal is not a boolean" },
		{ "network: ipam array", "{\"Id\":\"n1\",\"Name\":\"x\",\"IPAM\":[]}",
		  "unexpected Docker reply to network inspect: IPAM is not an object" },
		{ "network: config object", "{\"Id\":\"n1\",\"Name\":\"x\",\"IPAM\":{\"Config\":{}}}",
		  "unexpected Docker reply to network inspect: IPAM.Config is not an array" },
		{ "network: config entry", "{\"Id\":\"n1\",\"Name\":\"x\",\"IPAM\":{\"Config\":[1]}}",
		  "unexpected Docker reply to network inspect: IPAM.Config[0] is not an object" },
		{ "network: gateway number", "{\"Id\":\"n1\",\"Name\":\"x\",\"IPAM\":{\"Config\":"
					     "[{\"Subnet\":\"10.0.0.0/24\",\"Gateway\":1}]}}",
		  "unexpected Docker reply to network inspect: Gateway is not a string" },
		{ "network: options array", "{\"Id\":\"n1\",\"Name\":\"x\",\"Options\":[]}",
		  "unexpected Docker reply to network inspect: Options is not an object" },
		{ "Network create: short id", "{\"Id\":\"n1\"}",
		  "unexpected Docker reply to network create: Id is not a 64-digit network id" },
		{ "image: no id", "{\"Size\":1}",
		  "unexpected Docker reply to image inspect: Id is missing (expected a string)" },
		{ "image: size string", "{\"Id\":\"sha256:ab\",\"Size\":\"1\"}",
		  "unexpected Docker reply to image inspect: Size is not an integer" },
		{ "stats: pids array", "{\"pids_stats\":[]}",
		  "unexpected Docker reply to container stats: pids_stats is not an object" },
		{ "stats: cpu usage number", "{\"cpu_stats\":{\"cpu_usage\":1}}",
		  "unexpected Docker reply to container stats: cpu_usage is not an object" },
		{ "stats: usage string", "{\"memory_stats\":{\"usage\":\"1\"}}",
		  "unexpected Docker reply to container stats: usage is not an integer" },
		/* Replies that are not JSON at all (a proxy's error page in
		 * front of the engine), call by call. */
		{ "image: not json", "<html>", "Docker's reply to image inspect is not JSON (line 1 column 1: "
					       "'[' or '{' expected near '<'): <html>" },
		{ "stats: not json", "<html>", "Docker's reply to container stats is not JSON (line 1 column "
					       "1: '[' or '{' expected near '<'): <html>" },
		{ "container: not json", "<html>", "Docker's reply to container inspect is not JSON (line 1 "
						   "column 1: '[' or '{' expected near '<'): <html>" },
		{ "Network create: not json", "<html>", "Docker's reply to network create is not JSON (line 1 "
							"column 1: '[' or '{' expected near '<'): <html>" },
		{ "list: object", "{}", "unexpected Docker reply to container list: the reply is not a JSON array" },
		{ "list: not json", "[", "Docker's reply to container list is not JSON (line 1 column 1: "
					 "']' expected near end of file): [" },
		{ "Info: runtime entry", "{\"ServerVersion\":\"x\",\"NCPU\":2,\"MemTotal\":1,"
					 "\"Runtimes\":{\"runc\":1}}",
		  "unexpected Docker reply to info: a Runtimes entry is not an object" },
		{ "Info: security options", "{\"ServerVersion\":\"x\",\"NCPU\":2,\"MemTotal\":1,"
					    "\"Runtimes\":{},\"SecurityOptions\":\"seccomp\"}",
		  "unexpected Docker reply to info: SecurityOptions is not an array" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_bad(&cases[i], parse_any);
}

static void test_stats(void **state)
{
	static const char v1[] = "{\"pids_stats\":{\"current\":4},\"cpu_stats\":{\"cpu_usage\":"
				 "{\"total_usage\":123456789}},\"memory_stats\":{\"usage\":1000,"
				 "\"max_usage\":5000,\"limit\":134217728}}";
	static const char gone[] = "{\"pids_stats\":{},\"cpu_stats\":{\"cpu_usage\":"
				   "{\"total_usage\":0}},\"memory_stats\":{}}";
	static const char bad[] = "{\"memory_stats\":[]}";
	struct docker_stats st;
	char *err = NULL;

	assert_int_equal(docker_codec_parse_stats(v1, LEN(v1), &st, &err), DOCKER_OK);
	assert_true(st.valid);
	assert_int_equal(st.mem_max_usage, 5000);
	assert_int_equal(st.pids_current, 4);
	assert_int_equal(st.cpu_total_ns, 123456789);
	assert_int_equal(docker_codec_parse_stats(gone, LEN(gone), &st, &err), DOCKER_OK);
	assert_false(st.valid);
	assert_int_equal(docker_codec_parse_stats(bad, LEN(bad), &st, &err), DOCKER_ERR_PROTOCOL);
	assert_non_null(strstr(err, "memory_stats is not an object"));
	free(err);
}

/* /version as dockerd answers it: each field the agent logs and shows;
 * the optional ones absent are empty, and a required one absent or a field
 * of the wrong type is refused, naming it. */
static void test_version(void **state)
{
	(void)state;
	static const char full[] =
		"{\"Version\":\"26.1.5\",\"ApiVersion\":\"1.45\",\"KernelVersion\":\"6.1.0-18-amd64\","
		"\"Os\":\"linux\",\"Arch\":\"amd64\",\"GoVersion\":\"go1.22\"}";
	static const char bare[] = "{\"Version\":\"26.1.5\",\"ApiVersion\":\"1.45\"}";
	static const char no_api[] = "{\"Version\":\"26.1.5\"}";
	static const char bad_arch[] = "{\"Version\":\"1\",\"ApiVersion\":\"1.45\",\"Arch\":64}";
	struct docker_version v;
	char *err = NULL;

	assert_int_equal(docker_codec_parse_version(full, LEN(full), &v, &err), DOCKER_OK);
	assert_string_equal(v.version, "26.1.5");
	assert_string_equal(v.api_version, "1.45");
	assert_string_equal(v.kernel_version, "6.1.0-18-amd64");
	assert_string_equal(v.os, "linux");
	assert_string_equal(v.arch, "amd64");
	docker_version_clear(&v);
	assert_int_equal(docker_codec_parse_version(bare, LEN(bare), &v, &err), DOCKER_OK);
	assert_string_equal(v.kernel_version, "");
	assert_string_equal(v.os, "");
	assert_string_equal(v.arch, "");
	docker_version_clear(&v);
	assert_int_equal(docker_codec_parse_version(no_api, LEN(no_api), &v, &err), DOCKER_ERR_PROTOCOL);
	assert_null(v.version);
	assert_non_null(strstr(err, "ApiVersion is missing"));
	free(err);
	err = NULL;
	assert_int_equal(docker_codec_parse_version(bad_arch, LEN(bad_arch), &v, &err), DOCKER_ERR_PROTOCOL);
	assert_null(v.arch);
	assert_non_null(strstr(err, "Arch is not a string"));
	free(err);
}

static void test_error_message(void **state)
{
	static const char m[] = "{\"message\":\"No such container: x\\nsecond line\"}";
	char *s = docker_codec_error_message(m, LEN(m));

	assert_string_equal(s, "No such container: x second line");
	free(s);
	s = docker_codec_error_message("plain text", 10);
	assert_string_equal(s, "plain text");
	free(s);
}

/* The create body carries every default of docs/ARCHITECTURE.md "Sandbox defaults". */
static void test_create_body_hardening(void **state)
{
	const char *cmd[] = { "python3", "-", NULL };
	const struct docker_label labels[] = { { "mai.agent", "1" }, { "mai.job", "j1" } };
	struct docker_create_params p = {
		.image = "mai-sandbox:latest", .cmd = cmd, .user = "1000:1000", .workdir = "/tmp",
		.labels = labels, .n_labels = 2, .memory_bytes = 268435456, .nano_cpus = 500000000,
		.pids_limit = 64, .tmpfs_bytes = 16777216, .nofile = 64, .fsize_bytes = 1048576,
		.open_stdin = true, .core_bytes = 1, .sigpending = 256, .msgqueue_bytes = 204800,
		.memlock_bytes = 1048576, .seccomp_profile = "{\"defaultAction\":\"SCMP_ACT_ERRNO\"}",
	};
	char *s = docker_codec_create_body(&p);
	json_t *j = json_loads(s, 0, NULL), *h = json_object_get(j, "HostConfig");

	assert_non_null(h);
	assert_string_equal(json_string_value(json_object_get(j, "User")), "1000:1000");
	assert_true(json_is_true(json_object_get(j, "OpenStdin")));
	assert_true(json_is_true(json_object_get(j, "StdinOnce")));
	assert_true(json_is_true(json_object_get(j, "NetworkDisabled")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "Labels"), "mai.job")),
			    "j1");
	assert_true(json_is_true(json_object_get(h, "ReadonlyRootfs")));
	assert_true(json_is_false(json_object_get(h, "Privileged")));
	assert_true(json_is_true(json_object_get(h, "Init")));
	assert_string_equal(json_string_value(json_object_get(h, "NetworkMode")), "none");
	assert_string_equal(json_string_value(json_object_get(h, "Runtime")), "runc");
	assert_string_equal(json_string_value(json_array_get(json_object_get(h, "CapDrop"), 0)), "ALL");
	assert_string_equal(json_string_value(json_array_get(json_object_get(h, "SecurityOpt"), 0)),
			    "no-new-privileges");
	assert_string_equal(json_string_value(json_array_get(json_object_get(h, "SecurityOpt"), 1)),
			    "seccomp={\"defaultAction\":\"SCMP_ACT_ERRNO\"}");
	assert_string_equal(json_string_value(json_object_get(json_object_get(h, "Tmpfs"), "/tmp")),
			    "rw,noexec,nosuid,nodev,size=16777216");
	assert_int_equal(json_integer_value(json_object_get(h, "Memory")), 268435456);
	assert_int_equal(json_integer_value(json_object_get(h, "MemorySwap")), 268435456);
	assert_int_equal(json_integer_value(json_object_get(h, "NanoCpus")), 500000000);
	assert_int_equal(json_integer_value(json_object_get(h, "PidsLimit")), 64);
	assert_string_equal(json_string_value(json_object_get(json_object_get(h, "LogConfig"), "Type")),
			    "none");
	json_t *u = json_object_get(h, "Ulimits");
	assert_int_equal(json_array_size(u), 6);
	assert_string_equal(json_string_value(json_object_get(json_array_get(u, 2), "Name")), "core");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(u, 2), "Hard")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(u, 1), "Soft")), 1048576);
	static const char *const quotas[] = { "sigpending", "msgqueue", "memlock" };
	static const json_int_t quota_values[] = { 256, 204800, 1048576 };
	for (size_t i = 0; i < 3; i++) {
		json_t *q = json_array_get(u, 3 + i);
		assert_string_equal(json_string_value(json_object_get(q, "Name")), quotas[i]);
		assert_int_equal(json_integer_value(json_object_get(q, "Soft")), quota_values[i]);
		assert_int_equal(json_integer_value(json_object_get(q, "Hard")), quota_values[i]);
	}
	json_decref(j);
	free(s);
}

/* GET /networks/NAME of an internal network, and the create bodies of the
 * allowlist mode (issue 9). */
static void test_network_and_network_create_body(void **state)
{
	static const char net_reply[] =
		"{\"Name\":\"mai-net-0123456789ab\",\"Id\":\"f00d\",\"Driver\":\"bridge\","
		"\"Internal\":true,\"IPAM\":{\"Driver\":\"default\",\"Config\":[{\"Subnet\":"
		"\"172.21.0.0/16\",\"Gateway\":\"172.21.0.1\"}]},\"Labels\":{\"mai.agent\":\"1\"},"
		"\"Options\":{\"com.docker.network.bridge.name\":\"mai-0123456789a\"}}";
	static const char no_icc_reply[] =
		"{\"Name\":\"n\",\"Id\":\"f\",\"Options\":{\"" DOCKER_BRIDGE_ICC_OPTION
		"\":\"false\"}}";
	static const char bad_ipam[] = "{\"Name\":\"n\",\"Id\":\"f\",\"IPAM\":{\"Config\":{}}}";
	static const char bare_reply[] = "{\"Name\":\"n\",\"Id\":\"f\",\"IPAM\":{\"Config\":[]}}";
	const struct docker_label labels[] = { { "mai.agent", "1" } };
	const char *cmd[] = { "python3", NULL };
	struct docker_create_params p = { .image = "i", .cmd = cmd, .network = "mai-net-x",
					  .deps_tmpfs_bytes = 1 << 20, .tmpfs_bytes = 1 << 20 };
	struct docker_network n;
	char *err = NULL, *body;
	json_t *j;

	assert_int_equal(docker_codec_parse_network(net_reply, LEN(net_reply), &n, &err), DOCKER_OK);
	assert_true(n.internal);
	assert_string_equal(n.gateway, "172.21.0.1");
	assert_string_equal(n.subnet, "172.21.0.0/16");
	assert_string_equal(n.bridge, "mai-0123456789a");
	assert_true(n.icc); /* Docker's default */
	docker_network_clear(&n);
	assert_int_equal(docker_codec_parse_network(no_icc_reply, LEN(no_icc_reply), &n, &err),
			 DOCKER_OK);
	assert_false(n.icc);
	/* No IPAM and no Options: each field the callers print or compare is
	 * there, empty, never NULL (and icc is Docker's default). */
	assert_string_equal(n.subnet, "");
	assert_string_equal(n.gateway, "");
	docker_network_clear(&n);
	assert_int_equal(docker_codec_parse_network(bare_reply, LEN(bare_reply), &n, &err), DOCKER_OK);
	assert_string_equal(n.subnet, "");
	assert_string_equal(n.gateway, "");
	assert_string_equal(n.bridge, "");
	assert_true(n.icc);
	assert_false(n.internal);
	docker_network_clear(&n);
	assert_int_equal(docker_codec_parse_network(bad_ipam, LEN(bad_ipam), &n, &err),
			 DOCKER_ERR_PROTOCOL);
	assert_non_null(strstr(err, "IPAM.Config"));
	free(err);

	body = docker_codec_network_create_body("mai-net-x", "mai-x", labels, 1);
	j = json_loads(body, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "Options"),
							      "com.docker.network.bridge.name")),
			    "mai-x");
	assert_true(json_is_true(json_object_get(j, "Internal")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "Options"),
							      DOCKER_BRIDGE_ICC_OPTION)),
			    "false");
	assert_string_equal(json_string_value(json_object_get(j, "Driver")), "bridge");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "Labels"),
							      "mai.agent")), "1");
	json_decref(j);
	free(body);

	body = docker_codec_create_body(&p);
	j = json_loads(body, 0, NULL);
	json_t *host = json_object_get(j, "HostConfig");
	assert_string_equal(json_string_value(json_object_get(host, "NetworkMode")), "mai-net-x");
	assert_true(json_is_false(json_object_get(j, "NetworkDisabled")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(host, "Tmpfs"),
							      "/mai-deps")),
			    "rw,exec,nosuid,nodev,size=1048576");
	json_decref(j);
	free(body);
	/* Without a network: none at all, as before. */
	p.network = NULL;
	p.deps_tmpfs_bytes = 0;
	body = docker_codec_create_body(&p);
	j = json_loads(body, 0, NULL);
	host = json_object_get(j, "HostConfig");
	assert_string_equal(json_string_value(json_object_get(host, "NetworkMode")), "none");
	assert_true(json_is_true(json_object_get(j, "NetworkDisabled")));
	assert_null(json_object_get(json_object_get(host, "Tmpfs"), "/mai-deps"));
	json_decref(j);
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_network_and_network_create_body),
		cmocka_unit_test(test_info_recorded),
		cmocka_unit_test(test_info_bad),
		cmocka_unit_test(test_container_inspect),
		cmocka_unit_test(test_create_wait_list_image),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_other_replies_bad),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_error_message),
		cmocka_unit_test(test_create_body_hardening),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
