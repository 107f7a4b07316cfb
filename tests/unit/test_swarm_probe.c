/* The Swarm probe's look at a node's accounts (swarm_nodes.h): the probe
 * script run by the host's python3 against an /etc made here, standing for
 * the node's, checks the sandbox's uid_range against its passwd, group,
 * subuid and subgid, and says which entry uses the range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fileio.h"
#include "macro.h"
#include "swarm_nodes.h"

static char dir[] = "/tmp/mai-swarm-probe.XXXXXX";

static void put(const char *name, const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "we");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm(const char *name)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);

	unlink(p);
}

/* The probe's uid_range line for the range 100000-100999 against dir. */
static char *uid_range_line(void)
{
	_cleanup_free_ char *script = swarm_nodes_probe_script(false, 100000, 100999);
	_cleanup_free_ char *path = xasprintf("%s/probe.py", dir);
	char *at, *line = NULL;
	size_t len = 0;

	/* Where the node's /etc is mounted for a probe: here, dir. */
	while ((at = strstr(script, SWARM_NODE_ETC))) {
		char *s = xasprintf("%.*s%s%s", (int)(at - script), script, dir,
				    at + strlen(SWARM_NODE_ETC));
		free(script);
		script = s;
	}
	put("probe.py", script);
	_cleanup_free_ char *cmd = xasprintf("python3 -I %s | grep '^uid_range '", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_true(getline(&line, &len, p) > 0);
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return line;
}

static void test_free_range(void **state)
{
	put("passwd", "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n");
	put("group", "root:x:0:\nalice:x:1000:\n");
	put("subuid", "alice:100000000:65536\n");
	rm("subgid"); /* a node without one */
	_cleanup_free_ char *l = uid_range_line();
	assert_string_equal(l, "uid_range ok");
}

static void test_used(void **state)
{
	put("passwd", "root:x:0:0:root:/root:/bin/sh\nbob:x:100500:1000::/home/bob:/bin/sh\n");
	char *l = uid_range_line();
	assert_non_null(strstr(l, "uid_range account bob has uid 100500 in the sandbox's "
				  "uid_range 100000-100999 on the node"));
	free(l);

	put("passwd", "root:x:0:0:root:/root:/bin/sh\nbob:x:1001:100999::/home/bob:/bin/sh\n");
	l = uid_range_line();
	assert_non_null(strstr(l, "uid_range account bob has gid 100999 "));
	free(l);

	put("passwd", "root:x:0:0:root:/root:/bin/sh\n");
	put("group", "root:x:0:\nbuild:x:100000:\n");
	l = uid_range_line();
	assert_non_null(strstr(l, "uid_range group build has gid 100000 "));
	free(l);

	/* A subordinate range that overlaps the range's start. */
	put("group", "root:x:0:\n");
	put("subgid", "carol:99000:2000\n");
	l = uid_range_line();
	assert_non_null(strstr(l, "uid_range /etc/subgid gives carol the ids 99000-100999 "));
	free(l);

	/* No passwd to read: the node is not proven. */
	rm("passwd");
	l = uid_range_line();
	assert_non_null(strstr(l, "uid_range the node's /etc could not be read "));
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_range),
		cmocka_unit_test(test_used),
	};

	if (!mkdtemp(dir))
		return 1;
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	_cleanup_free_ char *rm = xasprintf("rm -rf %s", dir);
	if (system(rm) != 0)
		r = 1;
	return r;
}
