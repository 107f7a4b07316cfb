/* Strict parsing and canonical printing of sizes and durations as they are
 * written in the configuration: "512m", "64k", "1g", "4096"; "500ms", "120s",
 * "2m", "1h", "7d". A whole number and at most one unit, nothing else: no
 * sign, no fraction, no spaces, no "mb" or "1h30m". */
#ifndef MAI_UNITS_H
#define MAI_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "macro.h"

enum units_error {
	UNITS_OK = 0,
	UNITS_EMPTY,       /* "" or only spaces */
	UNITS_NEGATIVE,    /* "-1" */
	UNITS_FRACTION,    /* "1.5m" */
	UNITS_NOT_NUMBER,  /* "abc", " 1", "+1" */
	UNITS_BAD_UNIT,    /* "10x", "1mb" */
	UNITS_NO_UNIT,     /* "30" for a duration */
	UNITS_OVERFLOW,    /* does not fit in 64 bits */
};

/* A short phrase for messages, e.g. "has a fraction". Static string. */
const char *units_error_to_string(enum units_error e);

/* Sizes in bytes: a plain number of bytes, or a number followed by one of
 * k, m, g, t (powers of 1024; K, M, G, T accepted too). */
enum units_error units_parse_size(const char *s, uint64_t *bytes) _must_check_;
/* Durations in milliseconds: a number followed by ms, s, m, h or d; a bare 0
 * is accepted as zero. */
enum units_error units_parse_duration(const char *s, uint64_t *ms) _must_check_;

/* Canonical text in the largest unit that divides exactly ("64m", "1536k",
 * "100", "2m", "1500ms", "0"); out must hold UNITS_BUF_LEN bytes. Parsing
 * the output gives back the same value. */
#define UNITS_BUF_LEN 32
void units_format_size(uint64_t bytes, char out[UNITS_BUF_LEN]);
void units_format_duration(uint64_t ms, char out[UNITS_BUF_LEN]);

/* An age for a person, rounded down to one unit: "42 s" below 2 minutes,
 * "5 min" below 2 hours, "3 h" below 2 days, then "2 d"; "?" for a negative
 * age (a time in the future: the clock set back since it was written). */
void units_format_age(long long seconds, char out[UNITS_BUF_LEN]);

#endif
