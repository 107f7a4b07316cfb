#include "sandbox_uids.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "macro.h"

/* The containers in flight are few (workers plus the warm pool plus
 * orphans), so a flat list searched in full is enough. */
struct uid_slot {
	uint32_t uid;
	char *id; /* NULL between take and bind */
};

struct sandbox_uids {
	pthread_mutex_t lock;
	uint32_t first, last, next;
	struct uid_slot *slots;
	size_t n, cap;
};

struct sandbox_uids *sandbox_uids_new(uint32_t first, uint32_t last)
{
	struct sandbox_uids *u = xcalloc(1, sizeof(*u));

	pthread_mutex_init(&u->lock, NULL);
	u->first = first;
	u->last = last < first ? first : last;
	u->next = first;
	return u;
}

void sandbox_uids_free(struct sandbox_uids *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		free(u->slots[i].id);
	free(u->slots);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

static bool in_use(const struct sandbox_uids *u, uint32_t uid)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->slots[i].uid == uid)
			return true;
	return false;
}

int sandbox_uids_take(struct sandbox_uids *u, uint32_t *uid)
{
	uint64_t size = (uint64_t)u->last - u->first + 1;
	int r = -EAGAIN;

	pthread_mutex_lock(&u->lock);
	for (uint64_t tried = 0; tried < size && tried <= u->n; tried++) {
		uint32_t c = u->next;
		u->next = c == u->last ? u->first : c + 1;
		if (in_use(u, c))
			continue;
		if (u->n == u->cap) {
			u->cap = u->cap ? 2 * u->cap : 16;
			u->slots = xrealloc(u->slots, u->cap * sizeof(*u->slots));
		}
		u->slots[u->n++] = (struct uid_slot){ .uid = c };
		*uid = c;
		r = 0;
		break;
	}
	pthread_mutex_unlock(&u->lock);
	return r;
}

void sandbox_uids_bind(struct sandbox_uids *u, uint32_t uid, const char *id)
{
	pthread_mutex_lock(&u->lock);
	for (size_t i = 0; i < u->n; i++) {
		if (u->slots[i].uid == uid) {
			free(u->slots[i].id);
			u->slots[i].id = xstrdup(id);
			break;
		}
	}
	pthread_mutex_unlock(&u->lock);
}

static void drop_slot(struct sandbox_uids *u, size_t i)
{
	free(u->slots[i].id);
	u->slots[i] = u->slots[--u->n];
}

void sandbox_uids_give(struct sandbox_uids *u, uint32_t uid)
{
	pthread_mutex_lock(&u->lock);
	for (size_t i = 0; i < u->n; i++) {
		if (u->slots[i].uid == uid && !u->slots[i].id) {
			drop_slot(u, i);
			break;
		}
	}
	pthread_mutex_unlock(&u->lock);
}

void sandbox_uids_removed(struct sandbox_uids *u, const char *id)
{
	if (!id)
		return;
	pthread_mutex_lock(&u->lock);
	for (size_t i = 0; i < u->n; i++) {
		if (u->slots[i].id && strcmp(u->slots[i].id, id) == 0) {
			drop_slot(u, i);
			break;
		}
	}
	pthread_mutex_unlock(&u->lock);
}

size_t sandbox_uids_in_use(struct sandbox_uids *u)
{
	size_t n;

	pthread_mutex_lock(&u->lock);
	n = u->n;
	pthread_mutex_unlock(&u->lock);
	return n;
}
