/* Metrics of one Python source (pyanalyze.c fills them). */
#ifndef MAI_PYMETRICS_H
#define MAI_PYMETRICS_H

#include <stddef.h>

/* The shape of a script, measured by the analyzer: the sandbox scales its
 * limits with it. */
struct py_metrics {
	size_t bytes;
	size_t lines;
	size_t statements;
	size_t loops;
	size_t imports;
	size_t functions;
	size_t max_nesting;     /* deepest block indentation level */
};

#endif
