/* An ordered parallel map: work runs on a few threads, results are taken in
 * input order on the caller's thread, with a bounded number in flight.
 *
 * Used by 'mai-agent check DIR' to assess files on every CPU while printing
 * them exactly as a sequential run would. */
#ifndef MAI_ORDERED_POOL_H
#define MAI_ORDERED_POOL_H

#include <stddef.h>

/* Number of CPUs this process may run on (sched_getaffinity), at least 1
 * and at most max. */
unsigned ordered_pool_cpus(unsigned max);

/* Calls work(ctx, i) for every i in [0, n) on up to `threads` worker
 * threads, and done(ctx, i) on the calling thread for i = 0, 1, ... in that
 * order, each after work(ctx, i) has returned. At most `window` items are
 * between the start of work and the end of done, so a caller keeps per-item
 * state in an array of `window` entries indexed by i % window (window is
 * raised to threads when smaller). work must be thread-safe; done is never
 * called concurrently with itself. threads <= 1, or no thread could be
 * started: everything runs on the calling thread, work then done per item. */
void ordered_pool_run(size_t n, unsigned threads, size_t window,
		      void (*work)(void *ctx, size_t i), void (*done)(void *ctx, size_t i),
		      void *ctx);

#endif
