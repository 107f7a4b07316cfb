#include "daemon_answer.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>

#include "macro.h"

/* True when uid (primary group gid) belongs to group g. */
static bool in_group(const struct group *g, uid_t uid, gid_t gid)
{
	if (g->gr_gid == gid)
		return true;
	char buf[4096];
	struct passwd pw, *found = NULL;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) != 0 || !found)
		return false;
	for (char **m = g->gr_mem; m && *m; m++)
		if (strcmp(*m, found->pw_name) == 0)
			return true;
	/* The user's primary group in the password file. */
	return found->pw_gid == g->gr_gid;
}

int daemon_answer_allowed(void *arg, const struct drop_writer *caller, const char *script,
			  char **why)
{
	(void)arg;
	if (caller->uid == 0)
		return 0;
	char buf[16384];
	struct group g, *found = NULL;
	if (getgrnam_r(DAEMON_APPROVERS_GROUP, &g, buf, sizeof(buf), &found) == 0 && found &&
	    in_group(found, caller->uid, caller->gid))
		return 0;
	*why = xasprintf("uid %u may not approve or override %s: only root and the members of "
			 "the group " DAEMON_APPROVERS_GROUP " may (gpasswd -a USER "
			 DAEMON_APPROVERS_GROUP ")", (unsigned)caller->uid, script);
	return -EPERM;
}
