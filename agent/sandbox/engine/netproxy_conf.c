#include "netproxy_conf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"

/* A value that goes between double quotes on one line of tinyproxy.conf. */
static bool quotable(const char *s)
{
	return !strpbrk(s, "\"\n\r\\");
}

static bool host_ok(const char *h)
{
	return *h && strlen(h) <= 253 &&
	       h[strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")] ==
		       '\0';
}

/* "^pypi\.org$": the host and nothing else (tinyproxy matches the regular
 * expression against the host name of each request, CONNECT included). */
static void append_host_rule(FILE *f, const char *host)
{
	fputc('^', f);
	for (const char *c = host; *c; c++) {
		if (*c == '.')
			fputc('\\', f);
		fputc(*c, f);
	}
	fputs("$\n", f);
}

int netproxy_render(const struct netproxy_options *o, char **conf, char **filter, char **err)
{
	char *cbuf = NULL, *fbuf = NULL;
	size_t clen = 0, flen = 0;
	FILE *cf, *ff;
	const char *user = o->run_as_user ? o->run_as_user : (geteuid() == 0 ? "nobody" : NULL);
	const char *group = o->run_as_group ? o->run_as_group : (geteuid() == 0 ? "nogroup" : NULL);

	*conf = *filter = NULL;
	if (!quotable(o->dir)) {
		*err = xasprintf("the proxy directory %s has a quote, backslash or line break; "
				 "choose another agent.state_dir in agent.yaml", o->dir);
		return -EINVAL;
	}
	if (o->n_hosts == 0) {
		*err = xstrdup("network.allowed_hosts in config/sandbox.yaml is empty: the proxy "
			       "would refuse everything; list the package index's host");
		return -EINVAL;
	}
	for (size_t i = 0; i < o->n_hosts; i++) {
		if (!host_ok(o->allowed_hosts[i])) {
			*err = xasprintf("'%s' in network.allowed_hosts (config/sandbox.yaml) is not "
					 "a host name such as pypi.org", o->allowed_hosts[i]);
			return -EINVAL;
		}
	}
	if (!host_ok(o->listen) || !o->client_subnet || strpbrk(o->client_subnet, " \n\r\"")) {
		*err = xasprintf("the sandbox network's gateway '%s' or subnet '%s' is not an "
				 "address tinyproxy can use", o->listen,
				 o->client_subnet ? o->client_subnet : "");
		return -EINVAL;
	}
	cf = open_memstream(&cbuf, &clen);
	ff = open_memstream(&fbuf, &flen);
	if (!cf || !ff)
		abort();
	fprintf(cf,
		"# Written by mai-agent from network.* in config/sandbox.yaml at each start;\n"
		"# edits here are lost.\n"
		"Port %d\n"
		"Listen %s\n"
		"Timeout 60\n"
		"MaxClients 64\n"
		"# No LogFile: it logs to stderr, which the agent opened on\n"
		"# tinyproxy.log before the proxy dropped its privileges.\n"
		"LogLevel Info\n",
		o->port, o->listen);
	if (user)
		fprintf(cf, "User %s\n", user);
	if (group)
		fprintf(cf, "Group %s\n", group);
	fprintf(cf,
		"# Only the sandbox network may use it.\n"
		"Allow %s\n"
		"# Default deny: only hosts matched by the filter are reachable.\n"
		"Filter \"%s/filter\"\n"
		"FilterType ere\n"
		"FilterURLs No\n"
		"FilterDefaultDeny Yes\n"
		"# CONNECT (HTTPS) only to the HTTPS port.\n"
		"ConnectPort 443\n"
		"DisableViaHeader Yes\n"
		"XTinyproxy No\n",
		o->client_subnet, o->dir);
	fputs("# Hosts from network.allowed_hosts (config/sandbox.yaml), exact names.\n", ff);
	for (size_t i = 0; i < o->n_hosts; i++)
		append_host_rule(ff, o->allowed_hosts[i]);
	if (fclose(cf) != 0 || fclose(ff) != 0)
		abort();
	*conf = cbuf;
	*filter = fbuf;
	return 0;
}

char **netproxy_env(const char *url, const char *index_url)
{
	char **env = xcalloc(6, sizeof(char *));

	env[0] = xasprintf("HTTP_PROXY=%s", url);
	env[1] = xasprintf("HTTPS_PROXY=%s", url);
	env[2] = xasprintf("http_proxy=%s", url);
	env[3] = xasprintf("https_proxy=%s", url);
	env[4] = xasprintf("PIP_INDEX_URL=%s", index_url);
	return env;
}

void netproxy_env_free(char **env)
{
	for (char **v = env; v && *v; v++)
		free(*v);
	free(env);
}

struct sandbox_pip *sandbox_pip_new(const struct sandbox_network_options *o)
{
	struct sandbox_pip *pip = xcalloc(1, sizeof(*pip));

	pip->image = xstrdup(o->image ? o->image : "mai-sandbox-pip:latest");
	pip->index_url = xstrdup(o->index_url ? o->index_url : "https://pypi.org/simple");
	pip->install_timeout_ms = o->install_timeout_ms > 0 ? o->install_timeout_ms : 120000;
	pip->install_size = o->install_size > 0 ? o->install_size : 256LL << 20;
	return pip;
}

void sandbox_pip_set_image_id(struct sandbox_pip *pip, const char *id)
{
	free((char *)pip->image_id);
	pip->image_id = id ? xstrdup(id) : NULL;
}

void sandbox_pip_free(struct sandbox_pip *pip)
{
	if (!pip)
		return;
	free((char *)pip->image);
	free((char *)pip->image_id);
	free((char *)pip->index_url);
	free(pip);
}
