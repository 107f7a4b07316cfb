/* netproxy_render: the tinyproxy configuration and filter the agent writes
 * from network.* (issue 9); netproxy_start's refusals before a proxy runs,
 * and its stop of one an earlier agent left. The proxy itself runs for real
 * in tests/integration/network.sh. */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "netproxy.h"
#include "testdir.h"

static const char *const hosts[] = { "pypi.org", "files.pythonhosted.org" };

static struct netproxy_options opts(void)
{
	return (struct netproxy_options){
		.dir = "/var/lib/mai/proxy", .allowed_hosts = hosts, .n_hosts = 2,
		.listen = "172.18.0.1", .port = 3128, .client_subnet = "172.18.0.0/16",
		.run_as_user = "nobody", .run_as_group = "nogroup",
	};
}

/* Does host pass the filter? Each line is an ERE as tinyproxy reads it
 * (FilterType ere). */
static int filter_allows(const char *filter, const char *host)
{
	char *copy = strdup(filter), *save = NULL;
	int allowed = 0;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		regex_t re;
		if (line[0] == '#')
			continue;
		assert_int_equal(regcomp(&re, line, REG_EXTENDED | REG_NOSUB | REG_ICASE), 0);
		if (regexec(&re, host, 0, NULL, 0) == 0)
			allowed = 1;
		regfree(&re);
	}
	free(copy);
	return allowed;
}

static void test_conf_listens_on_gateway_only_and_denies_by_default(void **state)
{
	struct netproxy_options o = opts();
	char *conf, *filter, *err = NULL;

	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), 0);
	assert_non_null(strstr(conf, "\nPort 3128\n"));
	assert_non_null(strstr(conf, "\nListen 172.18.0.1\n"));
	assert_non_null(strstr(conf, "\nAllow 172.18.0.0/16\n"));
	assert_non_null(strstr(conf, "\nFilter \"/var/lib/mai/proxy/filter\"\n"));
	assert_non_null(strstr(conf, "\nFilterType ere\n"));
	assert_non_null(strstr(conf, "\nFilterDefaultDeny Yes\n"));
	assert_non_null(strstr(conf, "\nFilterURLs No\n"));
	assert_non_null(strstr(conf, "\nConnectPort 443\n"));
	assert_non_null(strstr(conf, "\nUser nobody\n"));
	assert_null(strstr(conf, "\nLogFile"));
	free(conf);
	free(filter);
}

static void test_filter_is_exact_host_names(void **state)
{
	struct netproxy_options o = opts();
	char *conf, *filter, *err = NULL;

	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), 0);
	assert_non_null(strstr(filter, "\n^pypi\\.org$\n"));
	assert_non_null(strstr(filter, "\n^files\\.pythonhosted\\.org$\n"));
	static const struct { const char *host; int allowed; } cases[] = {
		{ "pypi.org", 1 },
		{ "files.pythonhosted.org", 1 },
		{ "evil-pypi.org", 0 },        /* anchored at the start */
		{ "pypi.org.evil.example", 0 }, /* anchored at the end */
		{ "pypiXorg", 0 },             /* the dot is a dot */
		{ "sub.pypi.org", 0 },         /* exact, no subdomains */
		{ "example.com", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (filter_allows(filter, cases[i].host) != cases[i].allowed)
			fail_msg("%s: expected %s", cases[i].host, cases[i].allowed ? "allowed" : "denied");
	}
	free(conf);
	free(filter);
}

static void test_refuses_what_cannot_go_into_the_files(void **state)
{
	static const char *const bad_host[] = { "pypi.org\nAllow 0.0.0.0/0" };
	static const char *const regex_host[] = { "pypi.org|.*" };
	struct netproxy_options o = opts();
	char *conf = NULL, *filter = NULL, *err = NULL;

	o.allowed_hosts = bad_host;
	o.n_hosts = 1;
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	assert_non_null(strstr(err, "network.allowed_hosts"));
	free(err);
	err = NULL;
	o.allowed_hosts = regex_host;
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	free(err);
	err = NULL;
	o.n_hosts = 0;
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	free(err);
	err = NULL;
	o = opts();
	o.dir = "/var/lib/\"mai";
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	assert_non_null(strstr(err, "agent.state_dir"));
	free(err);
	err = NULL;
	o = opts();
	o.client_subnet = "0.0.0.0/0\nAllow all";
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	assert_non_null(strstr(err, "the sandbox network's gateway '172.18.0.1' or subnet '0.0.0.0/0"));
	free(err);
	assert_null(conf);
	assert_null(filter);
}

/* A socket listening on 127.0.0.1 (a port something else holds); its port
 * into *port. */
static int listening(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* A free TCP port on 127.0.0.1 (listened on, closed). */
static int free_port(void)
{
	int port;

	close(listening(&port));
	return port;
}

/* A stand-in for a proxy: a shell whose command line has "-c conf". */
static pid_t stand_in(const char *conf)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "while :; do sleep 1; done", "-c", conf, (char *)NULL);
		_exit(127);
	}
	return pid;
}

struct reaped {
	pid_t pid;
	int status;
};

static void *reap(void *arg)
{
	struct reaped *r = arg;
	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	return NULL;
}

/* netproxy_start's refusals before any proxy runs: a state directory that
 * cannot be made, and a port something else listens on (network.proxy_port
 * named). A proxy an earlier agent left (the pid file names a process run
 * with this configuration) is stopped first; a process the pid file names
 * that does not run it is left alone. */
static void test_start_refusals_and_leftover(void **state)
{
	const char *dir = *state;
	struct netproxy_options o = opts();
	struct netproxy *p = NULL;
	char *err = NULL;

	testdir_put(dir, "file", "x");
	_cleanup_free_ char *under_file = xasprintf("%s/file/proxy", dir);
	o.dir = under_file;
	assert_true(netproxy_start(&o, &p, &err) < 0);
	assert_non_null(strstr(err, "cannot create "));
	assert_non_null(strstr(err, "(check agent.state_dir in agent.yaml)"));
	free(err);
	err = NULL;

	int port;
	int lfd = listening(&port);

	_cleanup_free_ char *pdir = xasprintf("%s/proxy", dir);
	_cleanup_free_ char *conf = xasprintf("%s/tinyproxy.conf", pdir);
	assert_int_equal(mkdir(pdir, 0755), 0);
	pid_t left = stand_in(conf), other = stand_in("/elsewhere/tinyproxy.conf");
	/* Its command line is the shell's once it runs. */
	for (int i = 0; i < 500; i++) {
		_cleanup_free_ char *cl = xasprintf("/proc/%d/cmdline", (int)left), *text = NULL;
		size_t len = 0;
		if (fileio_read_path(cl, 4096, &text, &len) == 0 && len > 3 && !strcmp(text, "sh"))
			break;
		usleep(10000);
	}
	_cleanup_free_ char *pid_text = xasprintf("%d\n", (int)other);
	testdir_put(pdir, "tinyproxy.pid", pid_text);
	o = opts();
	o.dir = pdir;
	o.listen = "127.0.0.1";
	o.port = port;
	_cleanup_free_ char *in_use = xasprintf("something already listens on 127.0.0.1:%d; stop it or "
						"choose another network.proxy_port", o.port);
	assert_int_equal(netproxy_start(&o, &p, &err), -EADDRINUSE);
	assert_non_null(strstr(err, in_use));
	free(err);
	err = NULL;
	assert_int_equal(kill(other, 0), 0); /* not ours: left alone */

	free(pid_text);
	pid_text = xasprintf("%d\n", (int)left);
	testdir_put(pdir, "tinyproxy.pid", pid_text);
	/* Reaped as it ends, as the leftover of a killed agent would be by
	 * init: netproxy_start waits for the pid to be gone. */
	struct reaped r = { .pid = left };
	pthread_t reaper;
	assert_int_equal(pthread_create(&reaper, NULL, reap, &r), 0);
	assert_int_equal(netproxy_start(&o, &p, &err), -EADDRINUSE);
	free(err);
	assert_int_equal(kill(left, 0), -1); /* stopped before netproxy_start returned */
	assert_int_equal(pthread_join(reaper, NULL), 0);
	assert_true(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM);
	int st;
	kill(other, SIGKILL);
	assert_int_equal(waitpid(other, &st, 0), other);
	close(lfd);
}

/* netproxy_start refusing before any proxy runs: nothing to allow, and a
 * configuration file that cannot be written (agent.state_dir named). */
static void test_start_refuses_its_files(void **state)
{
	const char *dir = *state;
	struct netproxy_options o = opts();
	struct netproxy *p = NULL;
	char *err = NULL;

	o.dir = dir;
	o.n_hosts = 0;
	assert_int_equal(netproxy_start(&o, &p, &err), -EINVAL);
	assert_non_null(strstr(err, "network.allowed_hosts in config/sandbox.yaml is empty"));
	free(err);
	err = NULL;
	o = opts();
	o.dir = dir;
	_cleanup_free_ char *conf = xasprintf("%s/tinyproxy.conf", dir);
	assert_int_equal(mkdir(conf, 0755), 0);
	assert_true(netproxy_start(&o, &p, &err) < 0);
	assert_null(p);
	_cleanup_free_ char *want = xasprintf("cannot write %s: ", conf);
	assert_non_null(strstr(err, want));
	assert_non_null(strstr(err, "(check agent.state_dir in agent.yaml)"));
	free(err);
}

/* A proxy that cannot be started (its log cannot be opened): started again
 * every second, each failure logged, and after 10 s the start is refused
 * with where to look. */
static void test_start_never_listening(void **state)
{
	const char *dir = *state;
	struct netproxy_options o = opts();
	struct netproxy *p = NULL;
	char *err = NULL;

	o.dir = dir;
	o.listen = "127.0.0.1";
	o.port = free_port();
	_cleanup_free_ char *log = xasprintf("%s/tinyproxy.log", dir);
	assert_int_equal(mkdir(log, 0755), 0);
	int saved = testdir_stderr_begin(dir);
	int r = netproxy_start(&o, &p, &err);
	_cleanup_free_ char *logged = testdir_stderr_end(dir, saved);
	assert_int_equal(r, -EIO);
	assert_null(p);
	_cleanup_free_ char *want = xasprintf("the filtering proxy tinyproxy did not start listening "
					      "on 127.0.0.1:%d within 10 s; see %s (is tinyproxy "
					      "installed?", o.port, log);
	assert_non_null(strstr(err, want));
	free(err);
	_cleanup_free_ char *cannot = xasprintf("cannot open %s for the proxy", log);
	assert_non_null(strstr(logged, cannot));
	assert_non_null(strstr(logged, "the filtering proxy tinyproxy (pid -1) could not be started; "
				       "restarting it"));
}

/* The real proxy: a pid file naming no process stops nothing; with a pid
 * file that cannot be written (a directory in its place) it serves all
 * the same, the log says that a crash's leftover would not be found, and
 * the stop says it cannot remove it. */
static void test_real_proxy_pid_file(void **state)
{
	const char *dir = *state;
	struct netproxy_options o = opts();
	struct netproxy *p = NULL;
	char *err = NULL;

	if (system("command -v tinyproxy >/dev/null 2>&1") != 0)
		fail_msg("tinyproxy is not installed (packaging/install-deps.sh installs it)");
	o.dir = dir;
	o.listen = "127.0.0.1";
	o.port = free_port();
	o.run_as_user = o.run_as_group = NULL;
	_cleanup_free_ char *pid_path = xasprintf("%s/tinyproxy.pid", dir);
	testdir_put(dir, "tinyproxy.pid", "2147483600\n"); /* no such process */
	int saved = testdir_stderr_begin(dir);
	int r = netproxy_start(&o, &p, &err);
	_cleanup_free_ char *started = testdir_stderr_end(dir, saved);
	if (r != 0)
		fail_msg("netproxy_start: %s", err);
	assert_null(strstr(started, "stopping the filtering proxy"));
	netproxy_stop(p);

	assert_int_equal(mkdir(pid_path, 0755), 0);
	saved = testdir_stderr_begin(dir);
	r = netproxy_start(&o, &p, &err);
	if (r == 0)
		netproxy_stop(p);
	_cleanup_free_ char *logged = testdir_stderr_end(dir, saved);
	if (r != 0)
		fail_msg("netproxy_start: %s", err);
	_cleanup_free_ char *unwritten = xasprintf("cannot write %s: Is a directory; a proxy left by "
						   "a crash of the agent will not be found", pid_path);
	_cleanup_free_ char *kept = xasprintf("cannot remove %s", pid_path);
	if (!strstr(logged, unwritten) || !strstr(logged, kept))
		fail_msg("logged: %s", logged);
	struct stat st;
	assert_int_equal(stat(pid_path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

/* A leftover proxy that ignores SIGTERM is killed after 3 s. */
static void test_leftover_ignoring_sigterm(void **state)
{
	const char *dir = *state;
	struct netproxy_options o = opts();
	struct netproxy *p = NULL;
	char *err = NULL;

	_cleanup_free_ char *conf = xasprintf("%s/tinyproxy.conf", dir);
	pid_t left = fork();
	assert_true(left >= 0);
	if (left == 0) {
		execl("/bin/sh", "sh", "-c", "trap '' TERM; while :; do sleep 1; done", "-c", conf,
		      (char *)NULL);
		_exit(127);
	}
	/* The trap is set once the shell runs its loop: its first sleep. */
	for (int i = 0; i < 500; i++) {
		_cleanup_free_ char *cmd = xasprintf("pgrep -P %d sleep >/dev/null", (int)left);
		if (system(cmd) == 0)
			break;
		usleep(10000);
	}
	_cleanup_free_ char *pid_text = xasprintf("%d\n", (int)left);
	testdir_put(dir, "tinyproxy.pid", pid_text);
	struct reaped r = { .pid = left };
	pthread_t reaper;
	assert_int_equal(pthread_create(&reaper, NULL, reap, &r), 0);
	/* Something listens on the port: the start stops there, after the
	 * leftover's end. */
	int port;
	int lfd = listening(&port);
	o.dir = dir;
	o.listen = "127.0.0.1";
	o.port = port;
	assert_int_equal(netproxy_start(&o, &p, &err), -EADDRINUSE);
	free(err);
	assert_int_equal(pthread_join(reaper, NULL), 0);
	assert_true(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_listens_on_gateway_only_and_denies_by_default),
		cmocka_unit_test(test_filter_is_exact_host_names),
		cmocka_unit_test(test_refuses_what_cannot_go_into_the_files),
		cmocka_unit_test_setup_teardown(test_start_refusals_and_leftover, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_start_refuses_its_files, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_start_never_listening, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_real_proxy_pid_file, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_leftover_ignoring_sigterm, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
