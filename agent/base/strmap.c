#include "strmap.h"

#include <stdint.h>
#include <string.h>

struct strmap_entry {
	struct strmap_entry *next;
	void *value;
	char key[]; /* flexible: one allocation per entry */
};

struct strmap {
	struct strmap_entry **buckets;
	size_t nbuckets; /* a power of two */
	size_t size;
	void (*free_value)(void *);
};

/* FNV-1a: short keys, no adversary that can pick collisions cheaply matters
 * here (a flood of names only costs time in the owner's own loop). */
static uint64_t strmap_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

struct strmap *strmap_new(void (*free_value)(void *))
{
	struct strmap *m = xcalloc(1, sizeof(*m));
	m->nbuckets = 16;
	m->buckets = xcalloc(m->nbuckets, sizeof(*m->buckets));
	m->free_value = free_value;
	return m;
}

void strmap_free(struct strmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nbuckets; i++) {
		struct strmap_entry *e = m->buckets[i];
		while (e) {
			struct strmap_entry *next = e->next;
			if (m->free_value)
				m->free_value(e->value);
			free(e);
			e = next;
		}
	}
	free(m->buckets);
	free(m);
}

static struct strmap_entry **strmap_slot(const struct strmap *m, const char *key)
{
	struct strmap_entry **pe = &m->buckets[strmap_hash(key) & (m->nbuckets - 1)];
	while (*pe && strcmp((*pe)->key, key) != 0)
		pe = &(*pe)->next;
	return pe;
}

static void strmap_grow(struct strmap *m)
{
	size_t n = m->nbuckets * 2;
	struct strmap_entry **b = xcalloc(n, sizeof(*b));

	for (size_t i = 0; i < m->nbuckets; i++) {
		struct strmap_entry *e = m->buckets[i];
		while (e) {
			struct strmap_entry *next = e->next;
			size_t j = strmap_hash(e->key) & (n - 1);
			e->next = b[j];
			b[j] = e;
			e = next;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_entry *e = *strmap_slot(m, key);
	return e ? e->value : NULL;
}

void strmap_put(struct strmap *m, const char *key, void *value)
{
	struct strmap_entry **pe = strmap_slot(m, key);

	if (*pe) {
		if (m->free_value && (*pe)->value != value)
			m->free_value((*pe)->value);
		(*pe)->value = value;
		return;
	}
	size_t len = strlen(key);
	struct strmap_entry *e = xmalloc(sizeof(*e) + len + 1);
	memcpy(e->key, key, len + 1);
	e->value = value;
	e->next = NULL;
	*pe = e;
	if (++m->size > m->nbuckets)
		strmap_grow(m);
}

void *strmap_take(struct strmap *m, const char *key)
{
	struct strmap_entry **pe = strmap_slot(m, key);
	struct strmap_entry *e = *pe;
	void *v;

	if (!e)
		return NULL;
	*pe = e->next;
	v = e->value;
	free(e);
	m->size--;
	return v;
}

bool strmap_remove(struct strmap *m, const char *key)
{
	struct strmap_entry **pe = strmap_slot(m, key);
	struct strmap_entry *e = *pe;

	if (!e)
		return false;
	*pe = e->next;
	if (m->free_value)
		m->free_value(e->value);
	free(e);
	m->size--;
	return true;
}

size_t strmap_size(const struct strmap *m)
{
	return m->size;
}

void strmap_foreach(const struct strmap *m, void (*fn)(const char *key, void *value, void *arg),
		    void *arg)
{
	for (size_t i = 0; i < m->nbuckets; i++)
		for (struct strmap_entry *e = m->buckets[i]; e; e = e->next)
			fn(e->key, e->value, arg);
}
