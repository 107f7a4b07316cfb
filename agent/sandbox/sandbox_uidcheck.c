#include "sandbox_uidcheck.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "macro.h"

/* Where files of host users live: the entries of these are looked at. */
static const char *const owner_dirs[] = {
	"/", "/home", "/root", "/tmp", "/var/tmp", "/dev/shm", "/run/user", "/srv", "/opt", "/mnt",
};

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static bool in_range(const struct sandbox_uid_check *c, uint64_t id)
{
	return id >= c->first && id <= c->last;
}

static const char *fix_hint =
	"choose another uid_range in config/sandbox.yaml (ids no account, process or file uses; "
	"see the comment there)";

static int check_accounts(const struct sandbox_uid_check *c, char **err)
{
	struct passwd *pw;
	struct group *gr;
	int r = 0;

	setpwent();
	while (r == 0 && (pw = getpwent()))
		if (in_range(c, pw->pw_uid) || in_range(c, pw->pw_gid)) {
			*err = xasprintf("the account '%s' (uid %u, gid %u) is in the sandbox's uid "
					 "range %u-%u: its owner could read, trace and signal the "
					 "runs; %s", pw->pw_name, (unsigned)pw->pw_uid,
					 (unsigned)pw->pw_gid, c->first, c->last, fix_hint);
			r = -EEXIST;
		}
	endpwent();
	setgrent();
	while (r == 0 && (gr = getgrent()))
		if (in_range(c, gr->gr_gid)) {
			*err = xasprintf("the group '%s' (gid %u) is in the sandbox's uid range %u-%u; "
					 "%s", gr->gr_name, (unsigned)gr->gr_gid, c->first, c->last,
					 fix_hint);
			r = -EEXIST;
		}
	endgrent();
	return r;
}

/* "name:start:count" lines; a range that overlaps ours lets that user's
 * rootless containers run as our uids. */
static int check_subids(const struct sandbox_uid_check *c, const char *file, char **err)
{
	_cleanup_free_ char *path = xasprintf("%s%s", c->root ? c->root : "", file);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[512];

	if (!f)
		return 0; /* no subordinate ids at all */
	while (fgets(line, sizeof(line), f)) {
		char name[256];
		uint64_t start, count;
		if (sscanf(line, "%255[^:]:%" SCNu64 ":%" SCNu64, name, &start, &count) != 3 ||
		    count == 0)
			continue;
		if (start <= c->last && start + count - 1 >= c->first) {
			*err = xasprintf("%s gives '%s' the ids %" PRIu64 "-%" PRIu64 ", which overlap "
					 "the sandbox's uid range %u-%u: that user's rootless "
					 "containers could run as the sandbox's uids; %s", file, name,
					 start, start + count - 1, c->first, c->last, fix_hint);
			return -EEXIST;
		}
	}
	return 0;
}

/* The 64-hex container id in a process's cgroup path, or "". */
static void container_of(const char *pid, char id[65])
{
	_cleanup_free_ char *path = xasprintf("/proc/%s/cgroup", pid);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[1024];

	id[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		for (char *p = line; *p; p++) {
			size_t n = strspn(p, "0123456789abcdef");
			if (n == 64) {
				memcpy(id, p, 64);
				id[64] = '\0';
				return;
			}
			p += n;
			if (!*p)
				break;
		}
	}
}

/* The ids on a "Uid:" or "Gid:" line of /proc/PID/status that fall in the
 * range: the first such, or -1. */
static int64_t status_id_in_range(const struct sandbox_uid_check *c, const char *line)
{
	const char *p = strchr(line, ':');
	char *end;

	while (p && *++p) {
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p)
			break;
		if (in_range(c, v))
			return (int64_t)v;
		p = end - 1;
	}
	return -1;
}

/* The first id of process pid (a /proc entry's name) in the range, with its
 * name in comm; -1 when it has none, is gone or is a zombie (one that has
 * ended holds nothing and can reach no run). */
static int64_t live_id_in_range(const struct sandbox_uid_check *c, const char *pid,
				char comm[32])
{
	_cleanup_free_ char *path = xasprintf("/proc/%s/status", pid);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[256], state = '?';
	int64_t id = -1;

	snprintf(comm, 32, "?");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Name:", 5) == 0)
			sscanf(line + 5, " %31[^\n]", comm);
		else if (strncmp(line, "State:", 6) == 0)
			sscanf(line + 6, " %c", &state);
		else if (strncmp(line, "Uid:", 4) == 0 || strncmp(line, "Gid:", 4) == 0)
			if (id < 0)
				id = status_id_in_range(c, line);
	}
	return state == 'Z' || state == 'X' ? -1 : id;
}

struct found_process {
	char pid[16], comm[32], container[65];
	int64_t id;
};

/* Whether container id is one of Mai's (labelled mai.agent=1). */
static bool is_mai_container(char **mai, const char *id)
{
	for (size_t i = 0; mai && mai[i]; i++)
		if (strcmp(mai[i], id) == 0)
			return true;
	return false;
}

static int check_processes(const struct sandbox_uid_check *c, char **warning, char **err)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct found_process *found = NULL;
	size_t n = 0;
	char **mai = NULL;
	struct dirent *e;
	int r = 0;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		char comm[32];
		int64_t id = live_id_in_range(c, e->d_name, comm);
		if (id < 0)
			continue;
		found = xrealloc(found, (n + 1) * sizeof(*found));
		snprintf(found[n].pid, sizeof(found[n].pid), "%.15s", e->d_name);
		snprintf(found[n].comm, sizeof(found[n].comm), "%s", comm);
		found[n].id = id;
		container_of(e->d_name, found[n].container);
		n++;
	}
	if (n && c->docker) {
		size_t n_mai = 0;
		char *derr = NULL;
		if (docker_container_list_by_label(c->docker, "mai.agent", "1", &mai, &n_mai,
						   &derr) != DOCKER_OK) {
			free(derr);
			mai = NULL;
		}
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		if (found[i].container[0] && is_mai_container(mai, found[i].container)) {
			if (!*warning)
				*warning = xasprintf("process %s (%s) of another Mai agent's sandbox "
						     "(container %.12s) runs as id %" PRId64 " of this "
						     "agent's uid range %u-%u: runs of the two agents share "
						     "per-uid kernel quotas; give each agent its own "
						     "uid_range", found[i].pid, found[i].comm,
						     found[i].container, found[i].id, c->first, c->last);
			continue;
		}
		/* A process of a container that was removed between the scan and
		 * the list (another agent's run ending) is gone by now. */
		char comm[32];
		if (live_id_in_range(c, found[i].pid, comm) < 0)
			continue;
		*err = xasprintf("process %s (%s) runs as id %" PRId64 ", in the sandbox's uid range "
				 "%u-%u: it could read, trace and signal the runs; %s",
				 found[i].pid, found[i].comm, found[i].id, c->first, c->last,
				 fix_hint);
		r = -EEXIST;
	}
	docker_strv_free(mai);
	free(found);
	return r;
}

static int check_file_owners(const struct sandbox_uid_check *c, char **err)
{
	for (size_t i = 0; i < ARRAY_SIZE(owner_dirs); i++) {
		_cleanup_(closedirp) DIR *d = opendir(owner_dirs[i]);
		struct dirent *e;
		struct stat st;

		while (d && (e = readdir(d))) {
			if (strcmp(e->d_name, "..") == 0)
				continue;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			if (!in_range(c, st.st_uid) && !in_range(c, st.st_gid))
				continue;
			*err = xasprintf("%s%s%s is owned by uid %u gid %u, in the sandbox's uid "
					 "range %u-%u; %s", owner_dirs[i],
					 strcmp(owner_dirs[i], "/") ? "/" : "", e->d_name,
					 (unsigned)st.st_uid, (unsigned)st.st_gid, c->first, c->last,
					 fix_hint);
			return -EEXIST;
		}
	}
	return 0;
}

int sandbox_uid_range_check(const struct sandbox_uid_check *c, char **warning, char **err)
{
	int r;

	*warning = NULL;
	r = check_accounts(c, err);
	r = r ?: check_subids(c, "/etc/subuid", err);
	r = r ?: check_subids(c, "/etc/subgid", err);
	r = r ?: check_processes(c, warning, err);
	r = r ?: check_file_owners(c, err);
	if (r < 0) {
		free(*warning);
		*warning = NULL;
	}
	return r;
}

int sandbox_uid_range_remapped(const char *root, const char *remap_user, uint32_t first,
			       uint32_t last, uint32_t *host_first, uint32_t *host_last,
			       char **err)
{
	const char *user = remap_user ? remap_user : "dockremap";
	_cleanup_free_ char *path = xasprintf("%s/etc/subuid", root ? root : "");
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		char name[256];
		uint64_t start, count;
		if (sscanf(line, "%255[^:]:%" SCNu64 ":%" SCNu64, name, &start, &count) != 3 ||
		    strcmp(name, user) != 0)
			continue;
		if (last >= count) {
			*err = xasprintf("dockerd runs with userns-remap: container uids 0-%" PRIu64
					 " are mapped (/etc/subuid, %s), so the sandbox's uid_range "
					 "%u-%u cannot be used; choose one inside 1-%" PRIu64
					 " (each uid X runs as host uid %" PRIu64 "+X)", count - 1, user,
					 first, last, count - 1, start);
			return -ERANGE;
		}
		*host_first = (uint32_t)(start + first);
		*host_last = (uint32_t)(start + last);
		return 0;
	}
	*err = xasprintf("dockerd runs with userns-remap but /etc/subuid has no line for '%s': "
			 "cannot tell which host uids the sandbox's uid_range becomes", user);
	return -ENOENT;
}
