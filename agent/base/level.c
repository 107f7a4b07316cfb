#include "level.h"

#include <errno.h>
#include <strings.h>

#include "macro.h"

static const char *const level_names[] = {
	[LEVEL_LOW] = "LOW",
	[LEVEL_MEDIUM] = "MEDIUM",
	[LEVEL_HIGH] = "HIGH",
	[LEVEL_BLOCKED] = "BLOCKED",
};

const char *level_to_string(enum level level)
{
	if ((unsigned)level < ARRAY_SIZE(level_names))
		return level_names[level];
	return "?";
}

int level_from_string(const char *s, enum level *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(level_names); i++)
		if (strcasecmp(s, level_names[i]) == 0) {
			*out = (enum level)i;
			return 0;
		}
	return -EINVAL;
}

const char *trust_to_string(enum trust trust)
{
	switch (trust) {
	case TRUST_TRUSTED: return "trusted";
	case TRUST_STANDARD: return "standard";
	case TRUST_UNTRUSTED: return "untrusted";
	case TRUST_COUNT: break;
	}
	return "?";
}

enum trust level_trust(enum level level)
{
	switch (level) {
	case LEVEL_LOW: return TRUST_TRUSTED;
	case LEVEL_MEDIUM: return TRUST_STANDARD;
	case LEVEL_HIGH:
	case LEVEL_BLOCKED: break;
	}
	return TRUST_UNTRUSTED;
}
