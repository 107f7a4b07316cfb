/* Symbol tables of the analyzer: one open-addressing hash table per scope
 * (module, function, class), looked up from the innermost outward. */
#include <string.h>

#include "pyanalyze.h"

struct slot {
	char *name;
	size_t n;
	struct pya_binding b;
};

struct pya_scope {
	struct pya_scope *parent;
	size_t indent;
	struct slot *slots;
	size_t cap, used;
};

static size_t hash_name(const char *s, size_t n)
{
	size_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

struct pya_scope *pya_scope_new(size_t indent, struct pya_scope *parent)
{
	struct pya_scope *sc = xcalloc(1, sizeof(*sc));
	sc->parent = parent;
	sc->indent = indent;
	sc->cap = 16;
	sc->slots = xcalloc(sc->cap, sizeof(*sc->slots));
	return sc;
}

struct pya_scope *pya_scope_pop(struct pya_scope *sc)
{
	struct pya_scope *parent = sc->parent;
	for (size_t i = 0; i < sc->cap; i++) {
		free(sc->slots[i].name);
		free(sc->slots[i].b.s);
	}
	free(sc->slots);
	free(sc);
	return parent;
}

size_t pya_scope_indent(const struct pya_scope *sc)
{
	return sc->indent;
}

static struct slot *find_slot_hashed(struct slot *slots, size_t cap, size_t h, const char *name,
				     size_t n)
{
	size_t i = h & (cap - 1);
	while (slots[i].name && (slots[i].n != n || memcmp(slots[i].name, name, n) != 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static struct slot *find_slot(struct slot *slots, size_t cap, const char *name, size_t n)
{
	return find_slot_hashed(slots, cap, hash_name(name, n), name, n);
}

void pya_scope_bind(struct pya_scope *sc, const char *name, size_t n, const struct pya_binding *b)
{
	if ((sc->used + 1) * 2 > sc->cap) {
		size_t ncap = sc->cap * 2;
		struct slot *ns = xcalloc(ncap, sizeof(*ns));
		for (size_t i = 0; i < sc->cap; i++)
			if (sc->slots[i].name)
				*find_slot(ns, ncap, sc->slots[i].name, sc->slots[i].n) = sc->slots[i];
		free(sc->slots);
		sc->slots = ns;
		sc->cap = ncap;
	}
	struct slot *s = find_slot(sc->slots, sc->cap, name, n);
	if (!s->name) {
		s->name = xstrndup(name, n);
		s->n = n;
		sc->used++;
	}
	free(s->b.s);
	s->b = *b;
	s->b.s = b->s ? xstrdup(b->s) : NULL;
}

const struct pya_binding *pya_scope_lookup(const struct pya_scope *sc, const char *name, size_t n)
{
	size_t h = hash_name(name, n); /* once for every scope outward */

	for (; sc; sc = sc->parent) {
		if (!sc->used)
			continue;
		struct slot *s = find_slot_hashed(sc->slots, sc->cap, h, name, n);
		if (s->name)
			return &s->b;
	}
	return NULL;
}
