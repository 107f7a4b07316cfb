/* One log module: levels, errno-aware, to stderr. errno is preserved. */
#ifndef MAI_LOG_H
#define MAI_LOG_H

#include "macro.h"

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

void log_init(const char *progname, enum log_level level);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Parses "error", "warn", "info", "debug"; returns 0 or -EINVAL. */
int log_level_from_string(const char *s, enum log_level *out);
const char *log_level_to_string(enum log_level level);

/* log_warn and log_error append ": strerror(errno)". */
void log_error(const char *fmt, ...) _printf_(1, 2);
void log_errorx(const char *fmt, ...) _printf_(1, 2);
void log_warn(const char *fmt, ...) _printf_(1, 2);
void log_warnx(const char *fmt, ...) _printf_(1, 2);
void log_info(const char *fmt, ...) _printf_(1, 2);
void log_debug(const char *fmt, ...) _printf_(1, 2);

#endif
