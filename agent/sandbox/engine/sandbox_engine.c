/* What every engine's run shares (sandbox_engine.h). */
#include "sandbox_engine.h"

#include <stdlib.h>
#include <string.h>

void sandbox_engine_end_clear(struct sandbox_engine_end *e)
{
	free(e->node);
	free(e->err);
	memset(e, 0, sizeof(*e));
}
