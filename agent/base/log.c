#include "log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static const char *log_progname = "mai-agent";
static enum log_level log_current = LOG_LEVEL_INFO;
static bool log_stamped;

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARN] = "warn",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

void log_init(const char *progname, enum log_level level)
{
	if (progname)
		log_progname = progname;
	log_current = level;
}

void log_set_level(enum log_level level) { log_current = level; }
void log_set_timestamps(bool on) { log_stamped = on; }
enum log_level log_get_level(void) { return log_current; }

const char *log_level_to_string(enum log_level level)
{
	if ((size_t)level >= ARRAY_SIZE(level_names))
		return "?";
	return level_names[level];
}

void log_timestamp(char out[LOG_TIMESTAMP_LEN + 1])
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, LOG_TIMESTAMP_LEN + 1, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, LOG_TIMESTAMP_LEN + 1 - n, ".%03uZ", (unsigned)(ts.tv_nsec / 1000000) % 1000u);
}

__attribute__((format(printf, 3, 0)))
static void log_emit(enum log_level level, int errnum, const char *fmt, va_list ap)
{
	char msg[2048], stamp[LOG_TIMESTAMP_LEN + 2] = "";
	int saved = errno;

	if (level > log_current) {
		errno = saved;
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_stamped) {
		log_timestamp(stamp);
		stamp[LOG_TIMESTAMP_LEN] = ' ';
		stamp[LOG_TIMESTAMP_LEN + 1] = '\0';
	}
	/* One call per line: a line is written whole even when threads log
	 * at once. */
	if (errnum)
		fprintf(stderr, "%s%s: %s: %s: %s\n", stamp, log_progname,
			log_level_to_string(level), msg, strerror(errnum));
	else
		fprintf(stderr, "%s%s: %s: %s\n", stamp, log_progname,
			log_level_to_string(level), msg);
	errno = saved;
}

#define LOG_FN(name, level, with_errno)                          \
	void name(const char *fmt, ...)                          \
	{                                                        \
		int e = with_errno ? errno : 0;                  \
		va_list ap;                                      \
		va_start(ap, fmt);                               \
		log_emit(level, e, fmt, ap);                     \
		va_end(ap);                                      \
		errno = e ? e : errno;                           \
	}

LOG_FN(log_error, LOG_LEVEL_ERROR, 1)
LOG_FN(log_errorx, LOG_LEVEL_ERROR, 0)
LOG_FN(log_warn, LOG_LEVEL_WARN, 1)
LOG_FN(log_warnx, LOG_LEVEL_WARN, 0)
LOG_FN(log_info, LOG_LEVEL_INFO, 0)
LOG_FN(log_debug, LOG_LEVEL_DEBUG, 0)
