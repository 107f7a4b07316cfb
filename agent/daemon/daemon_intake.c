#include "daemon_intake.h"

#include <stdio.h>
#include <string.h>

#include "strmap.h"

struct intake_owner;

struct intake_entry {
	struct daemon_intake_item item;
	struct intake_owner *owner;
	struct intake_entry *prev, *next; /* in its owner's FIFO */
};

/* One writer's waiting names, oldest first. Kept until the queue is freed
 * (there are as many as writers, not as names). */
struct intake_owner {
	uid_t uid;
	struct intake_entry *head, *tail;
	struct intake_owner *next_turn; /* in the ring of owners with names */
	bool in_ring;
};

struct daemon_intake {
	struct strmap *entries; /* rel -> intake_entry */
	struct strmap *owners;  /* "<uid>" -> intake_owner */
	struct intake_owner *ring_head, *ring_tail; /* the next to take a turn first */
};

void daemon_intake_item_clear(struct daemon_intake_item *it)
{
	if (!it)
		return;
	free(it->rel);
	drop_taken_clear(&it->taken);
	memset(it, 0, sizeof(*it));
}

static void entry_free(void *v)
{
	struct intake_entry *e = v;
	daemon_intake_item_clear(&e->item);
	free(e);
}

struct daemon_intake *daemon_intake_new(void)
{
	struct daemon_intake *q = xcalloc(1, sizeof(*q));
	q->entries = strmap_new(entry_free);
	q->owners = strmap_new(free);
	return q;
}

void daemon_intake_free(struct daemon_intake *q)
{
	if (!q)
		return;
	strmap_free(q->entries);
	strmap_free(q->owners);
	free(q);
}

size_t daemon_intake_count(const struct daemon_intake *q)
{
	return strmap_size(q->entries);
}

static struct intake_owner *owner_of(struct daemon_intake *q, uid_t uid)
{
	char key[24];
	snprintf(key, sizeof(key), "%lu", (unsigned long)uid);
	struct intake_owner *o = strmap_get(q->owners, key);
	if (!o) {
		o = xcalloc(1, sizeof(*o));
		o->uid = uid;
		strmap_put(q->owners, key, o);
	}
	return o;
}

static void ring_append(struct daemon_intake *q, struct intake_owner *o)
{
	o->next_turn = NULL;
	o->in_ring = true;
	if (q->ring_tail)
		q->ring_tail->next_turn = o;
	else
		q->ring_head = o;
	q->ring_tail = o;
}

static void fifo_append(struct daemon_intake *q, struct intake_owner *o, struct intake_entry *e)
{
	e->owner = o;
	e->next = NULL;
	e->prev = o->tail;
	if (o->tail)
		o->tail->next = e;
	else
		o->head = e;
	o->tail = e;
	if (!o->in_ring)
		ring_append(q, o);
}

/* Unlinks e from its owner's FIFO; an owner left empty leaves the ring at
 * its next turn (daemon_intake_next skips it). */
static void fifo_unlink(struct intake_entry *e)
{
	struct intake_owner *o = e->owner;
	if (e->prev)
		e->prev->next = e->next;
	else
		o->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		o->tail = e->prev;
	e->prev = e->next = NULL;
	e->owner = NULL;
}

void daemon_intake_put(struct daemon_intake *q, uid_t turn_uid, const char *rel,
		       struct drop_taken *taken, const struct drop_writer *writer)
{
	struct intake_entry *e = strmap_get(q->entries, rel);
	if (e) {
		drop_taken_clear(&e->item.taken);
		e->item.has_taken = false;
		if (e->owner->uid != turn_uid) {
			fifo_unlink(e);
			fifo_append(q, owner_of(q, turn_uid), e);
		}
	} else {
		e = xcalloc(1, sizeof(*e));
		e->item.rel = xstrdup(rel);
		strmap_put(q->entries, rel, e);
		fifo_append(q, owner_of(q, turn_uid), e);
	}
	e->item.writer = *writer;
	if (taken) {
		e->item.taken = *taken;
		e->item.has_taken = true;
		memset(&taken->snap, 0, sizeof(taken->snap));
	}
}

/* Moves e's item into *out and frees e. */
static void hand_out(struct daemon_intake *q, struct intake_entry *e, struct daemon_intake_item *out)
{
	fifo_unlink(e);
	strmap_take(q->entries, e->item.rel);
	*out = e->item;
	free(e);
}

bool daemon_intake_next(struct daemon_intake *q, struct daemon_intake_item *out)
{
	while (q->ring_head) {
		struct intake_owner *o = q->ring_head;
		q->ring_head = o->next_turn;
		if (!q->ring_head)
			q->ring_tail = NULL;
		o->in_ring = false;
		o->next_turn = NULL;
		if (!o->head)
			continue; /* its names were taken out or moved */
		struct intake_entry *e = o->head;
		hand_out(q, e, out);
		if (o->head)
			ring_append(q, o); /* its next name waits for the others' turns */
		return true;
	}
	return false;
}

bool daemon_intake_take(struct daemon_intake *q, const char *rel, struct daemon_intake_item *out)
{
	struct intake_entry *e = strmap_get(q->entries, rel);
	if (!e)
		return false;
	hand_out(q, e, out);
	return true;
}
