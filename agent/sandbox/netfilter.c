#include "netfilter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "subprocess.h"

#define NETFILTER_TIMEOUT_MS 30000
/* iptables -S of a host with many containers is a few hundred kB. */
#define NETFILTER_OUTPUT_MAX (8u << 20)
#define NETFILTER_MAX_ARGS 24
#define NETFILTER_CHAIN_MAX 28 /* iptables' limit on a chain name */
#define NETFILTER_IFNAME_MAX 15

#define NETFILTER_ADVICE                                                                       \
	"the network allowlist mode filters the sandbox network with iptables and needs "     \
	"root (CAP_NET_ADMIN): run the agent as root with iptables installed "                \
	"(packaging/install-deps.sh), or set network: none at every level in "                \
	"config/sandbox.yaml"

/* The iptables of PATH, as Docker finds it: its rules and Docker's are in
 * the same backend (nf_tables or legacy) and show in the same listing. */
#define NETFILTER_PROGRAM "iptables"

/* Letters, digits and the characters of extra; 1 to max of them. Such a
 * value is one word of iptables -S output, never quoted. */
static bool word_ok(const char *s, size_t max, const char *extra)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(s), i;

	if (n == 0 || n > max)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr(alnum, s[i]) && !strchr(extra, s[i]))
			return false;
	return true;
}

static char *join(char *const argv[])
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	for (size_t i = 0; argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
	if (fclose(f) != 0)
		abort();
	return buf;
}

/* iptables -w ARGS... (-w: wait for the xtables lock Docker also takes).
 * 0 with *out (caller frees, may be NULL) what it printed, or -errno with
 * *err naming the command, what it said and what to do. */
static int run(const char *const args[], char **out, char **err)
{
	char *argv[NETFILTER_MAX_ARGS + 3];
	char *text = NULL;
	size_t n = 0, len;
	int rc;

	argv[n++] = NETFILTER_PROGRAM;
	argv[n++] = "-w";
	for (size_t i = 0; args[i]; i++) {
		if (n == NETFILTER_MAX_ARGS + 2)
			abort();
		argv[n++] = (char *)args[i];
	}
	argv[n] = NULL;
	rc = subprocess_capture(argv, NETFILTER_TIMEOUT_MS, NETFILTER_OUTPUT_MAX, true, &text, &len);
	if (rc == 0) {
		if (out)
			*out = text;
		else
			free(text);
		return 0;
	}
	_cleanup_free_ char *cmd = join(argv);
	if (rc == -ENOENT) {
		*err = xstrdup(NETFILTER_PROGRAM " is not installed (not in PATH); " NETFILTER_ADVICE);
	} else if (rc < 0) {
		*err = xasprintf("'%s' could not run: %s; " NETFILTER_ADVICE, cmd, strerror(-rc));
	} else {
		while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
			text[--len] = '\0';
		*err = xasprintf("'%s' failed (exit status %d: %.400s); " NETFILTER_ADVICE, cmd,
				 rc, text);
	}
	free(text);
	return rc < 0 ? rc : -EIO;
}

/* Is this "-A CHAIN ... --comment TAG ..." line one of ours in another chain
 * than TAG (the INPUT jump)? Then words[] holds it, split at spaces, with
 * "-D" for "-A", ready to delete it. */
static bool tagged_reference(char *line, const char *tag, const char *words[], size_t max)
{
	size_t n = 0;
	bool tagged = false;

	if (strncmp(line, "-A ", 3) != 0)
		return false;
	for (char *save = NULL, *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (n + 1 == max)
			return false;
		if (n > 0 && strcmp(words[n - 1], "--comment") == 0 && strcmp(w, tag) == 0)
			tagged = true;
		words[n++] = w;
	}
	words[n] = NULL;
	if (!tagged || n < 2 || strcmp(words[1], tag) == 0)
		return false;
	words[0] = "-D";
	return true;
}

int netfilter_guard_remove(const char *tag, char **err)
{
	const char *list[] = { "-S", NULL };
	_cleanup_free_ char *rules = NULL;
	_cleanup_free_ char *chain_line = xasprintf("-N %s", tag);
	bool chain = false;
	int r;

	if (!word_ok(tag, NETFILTER_CHAIN_MAX, "-")) {
		*err = xasprintf("'%s' cannot name an iptables chain", tag);
		return -EINVAL;
	}
	if ((r = run(list, &rules, err)) < 0)
		return r;
	for (char *save = NULL, *line = strtok_r(rules, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *words[NETFILTER_MAX_ARGS + 1];

		if (strcmp(line, chain_line) == 0)
			chain = true;
		else if (tagged_reference(line, tag, words, ARRAY_SIZE(words)) &&
			 (r = run(words, NULL, err)) < 0)
			return r;
	}
	if (chain) {
		const char *flush[] = { "-F", tag, NULL }, *drop[] = { "-X", tag, NULL };

		if ((r = run(flush, NULL, err)) < 0 || (r = run(drop, NULL, err)) < 0)
			return r;
	}
	return 0;
}

int netfilter_guard_install(const struct netfilter_guard *g, char **err)
{
	struct in_addr addr;
	char port[16], dest[INET_ADDRSTRLEN + 4];
	int r;

	if (!word_ok(g->bridge, NETFILTER_IFNAME_MAX, "-_.") ||
	    inet_pton(AF_INET, g->gateway, &addr) != 1 || g->port < 1 || g->port > 65535) {
		*err = xasprintf("cannot filter the sandbox network: bridge '%s', gateway '%s' or "
				 "port %d is not usable (network.proxy_port in config/sandbox.yaml)",
				 g->bridge, g->gateway, g->port);
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%d", g->port);
	snprintf(dest, sizeof(dest), "%s/32", g->gateway);
	const char *t = g->tag;
	/* The chain is filled before the INPUT rule sends anything to it. */
	const char *const steps[][NETFILTER_MAX_ARGS] = {
		{ "-N", t },
		{ "-A", t, "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED", "-m", "comment",
		  "--comment", t, "-j", "ACCEPT" },
		{ "-A", t, "-d", dest, "-p", "tcp", "--dport", port, "-m", "comment", "--comment", t,
		  "-j", "ACCEPT" },
		{ "-A", t, "-m", "comment", "--comment", t, "-j", "DROP" },
		{ "-I", "INPUT", "1", "-i", g->bridge, "-m", "comment", "--comment", t, "-j", t },
	};

	if ((r = netfilter_guard_remove(t, err)) < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		if ((r = run(steps[i], NULL, err)) < 0) {
			char *e = NULL;
			if (netfilter_guard_remove(t, &e) < 0) {
				log_warnx("removing the half-installed filter %s failed: %s", t, e);
				free(e);
			}
			return r;
		}
	}
	log_info("packet filter %s: from bridge %s the host accepts only TCP to %s:%d", t,
		 g->bridge, g->gateway, g->port);
	return 0;
}
