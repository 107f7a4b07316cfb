/* The two scales every layer shares: the risk level an assessment gives a
 * script, and the trust level a run gets (docs/ARCHITECTURE.md "Levels").
 *
 * One definition of each: the assessor produces a level, the policy decides
 * on it, the configuration keys the limits by trust, and the sandbox runs
 * with them. LOW runs trusted, MEDIUM standard, and HIGH or BLOCKED that a
 * person let through untrusted (level_trust()). */
#ifndef MAI_LEVEL_H
#define MAI_LEVEL_H

enum level {
	LEVEL_LOW,
	LEVEL_MEDIUM,
	LEVEL_HIGH,
	LEVEL_BLOCKED,
};

/* "LOW", "MEDIUM", "HIGH", "BLOCKED"; "?" for anything else. */
const char *level_to_string(enum level level);
/* Parses the strings above (case-insensitive). 0 or -EINVAL. */
int level_from_string(const char *s, enum level *out);

enum trust {
	TRUST_TRUSTED,   /* assessed LOW */
	TRUST_STANDARD,  /* MEDIUM */
	TRUST_UNTRUSTED, /* HIGH or BLOCKED that a person let through */
	TRUST_COUNT,
};

/* "trusted", "standard", "untrusted"; "?" for anything else. */
const char *trust_to_string(enum trust trust);

/* The trust a run of content assessed at this level gets; anything out of
 * range is untrusted. */
enum trust level_trust(enum level level);

#endif
