#include "stagetime.h"

#include <time.h>

static _Thread_local struct stagetime *bound;

static const char *const names[STAGE_COUNT] = {
	[STAGE_INTAKE] = "intake",
	[STAGE_QUEUE] = "queue",
	[STAGE_AUDIT] = "audit",
	[STAGE_HISTORY] = "history",
	[STAGE_ASSESS] = "assess",
	[STAGE_ANALYZERS] = "analyzers",
	[STAGE_RESULT] = "result_writes",
	[STAGE_RUN_NOTE] = "run_note",
	[STAGE_CONTAINER] = "container",
	[STAGE_SCRIPT] = "script",
	[STAGE_END] = "end",
	[STAGE_OUTPUT] = "output",
	[STAGE_REMOVAL] = "removal",
	[STAGE_SIDECAR] = "sidecar",
	[STAGE_OTHER] = "other",
};

const char *stage_to_string(enum stage s)
{
	return (unsigned)s < STAGE_COUNT ? names[s] : "unknown";
}

int64_t stagetime_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void stagetime_bind(struct stagetime *st)
{
	bound = st;
	if (st)
		st->last_ns = stagetime_now_ns();
}

void stagetime_mark(enum stage s)
{
	if (!bound || (unsigned)s >= STAGE_COUNT)
		return;
	int64_t now = stagetime_now_ns();
	bound->ns[s] += now - bound->last_ns;
	bound->last_ns = now;
}

json_t *stagetime_to_json(const struct stagetime *st)
{
	json_t *o = json_object();

	for (int s = 0; s < STAGE_COUNT; s++)
		if (st->ns[s] > 0)
			json_object_set_new(o, names[s], json_real((double)((st->ns[s] + 5000) / 10000) / 100));
	return o;
}
