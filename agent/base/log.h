/* One log module: levels, errno-aware, to stderr. errno is preserved. */
#ifndef MAI_LOG_H
#define MAI_LOG_H

#include <stdbool.h>

#include "macro.h"

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

void log_init(const char *progname, enum log_level level);
void log_set_level(enum log_level level);
/* Starts every line with its time, RFC 3339 in UTC with milliseconds
 * ("2025-01-31T12:34:56.789Z "): for a log written to a file (--log-file),
 * where nothing else (journald) stamps the lines. Off by default. */
void log_set_timestamps(bool on);
/* The current time in that form, NUL terminated. */
#define LOG_TIMESTAMP_LEN 24
void log_timestamp(char out[LOG_TIMESTAMP_LEN + 1]);
enum log_level log_get_level(void);
const char *log_level_to_string(enum log_level level);

/* log_warn and log_error append ": strerror(errno)". */
void log_error(const char *fmt, ...) _printf_(1, 2);
void log_errorx(const char *fmt, ...) _printf_(1, 2);
void log_warn(const char *fmt, ...) _printf_(1, 2);
void log_warnx(const char *fmt, ...) _printf_(1, 2);
void log_info(const char *fmt, ...) _printf_(1, 2);
void log_debug(const char *fmt, ...) _printf_(1, 2);

#endif
