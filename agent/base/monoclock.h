/* The monotonic clock in milliseconds, for deadlines, timeouts and
 * durations everywhere in the agent (never the wall clock, which can jump). */
#ifndef MAI_MONOCLOCK_H
#define MAI_MONOCLOCK_H

#include <stdint.h>

int64_t monoclock_ms(void);

#endif
