#include "approvers.h"

#include <stdatomic.h>
#include <string.h>

#include "account.h"

struct approvers {
	atomic_uint refs;
	char **users, **groups;
	size_t n_users, n_groups;
	bool allow_self;
};

const char *approvers_verdict_to_string(enum approvers_verdict v)
{
	switch (v) {
	case APPROVERS_OK: return "ok";
	case APPROVERS_NOT_APPROVER: return "not_approver";
	case APPROVERS_SELF: return "self_approval";
	}
	return "unknown";
}

static char **copy_list(const char *const *items, size_t n)
{
	char **out = xcalloc(n ? n : 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(items[i]);
	return out;
}

static void free_list(char **items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

struct approvers *approvers_new(const char *const *users, size_t n_users,
				const char *const *groups, size_t n_groups, bool allow_self)
{
	struct approvers *a = xcalloc(1, sizeof(*a));
	atomic_init(&a->refs, 1);
	a->users = copy_list(users, n_users);
	a->n_users = n_users;
	a->groups = copy_list(groups, n_groups);
	a->n_groups = n_groups;
	a->allow_self = allow_self;
	return a;
}

struct approvers *approvers_ref(struct approvers *a)
{
	atomic_fetch_add(&a->refs, 1);
	return a;
}

void approvers_unref(struct approvers *a)
{
	if (!a || atomic_fetch_sub(&a->refs, 1) != 1)
		return;
	free_list(a->users, a->n_users);
	free_list(a->groups, a->n_groups);
	free(a);
}

bool approvers_allow_self(const struct approvers *a)
{
	return a->allow_self;
}

bool approvers_is_approver(const struct approvers *a, uid_t uid)
{
	for (size_t i = 0; i < a->n_users; i++) {
		uid_t u;
		if (account_parse_user(a->users[i], &u) == 0 && u == uid)
			return true;
	}
	for (size_t i = 0; i < a->n_groups; i++) {
		gid_t g;
		if (account_parse_group(a->groups[i], &g) == 0 && account_in_group(uid, g))
			return true;
	}
	return false;
}

enum approvers_verdict approvers_check(const struct approvers *a, uid_t answer_uid,
				       uid_t script_uid)
{
	if (!approvers_is_approver(a, answer_uid))
		return APPROVERS_NOT_APPROVER;
	if (answer_uid == script_uid && !a->allow_self)
		return APPROVERS_SELF;
	return APPROVERS_OK;
}

/* "a, b or c" of the listed names, each with its prefix. */
static void append_list(char **out, char *const *items, size_t n, const char *one, const char *many,
			bool *first)
{
	for (size_t i = 0; i < n; i++) {
		const char *sep = *first ? "" : i + 1 == n ? " or " : ", ";
		const char *what = i > 0 ? "" : n > 1 ? many : one;
		char *s = xasprintf("%s%s%s%s", *out, sep, what, items[i]);
		free(*out);
		*out = s;
		*first = false;
	}
}

char *approvers_describe(const struct approvers *a)
{
	if (a->n_users == 0 && a->n_groups == 0)
		return xstrdup("nobody (approvers in security.yaml lists no user and no group)");
	char *out = xstrdup("");
	bool first = true;
	append_list(&out, a->users, a->n_users, "user ", "users ", &first);
	if (a->n_users > 0 && a->n_groups > 0) {
		char *s = xasprintf("%s or ", out);
		free(out);
		out = s;
		first = true;
	}
	append_list(&out, a->groups, a->n_groups, "a member of group ", "a member of groups ",
		    &first);
	return out;
}

char *approvers_unknown(const struct approvers *a)
{
	char *out = xstrdup("");
	for (size_t i = 0; i < a->n_users; i++) {
		uid_t u;
		if (account_parse_user(a->users[i], &u) < 0) {
			char *s = xasprintf("%suser %s\n", out, a->users[i]);
			free(out);
			out = s;
		}
	}
	for (size_t i = 0; i < a->n_groups; i++) {
		gid_t g;
		if (account_parse_group(a->groups[i], &g) < 0) {
			char *s = xasprintf("%sgroup %s\n", out, a->groups[i]);
			free(out);
			out = s;
		}
	}
	return out;
}
