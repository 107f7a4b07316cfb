/* A real child process for tests of exit statuses: it waits until *release
 * (the write end of a pipe) is closed, then exits with code. Asserts on
 * failure; the caller reaps it. */
#ifndef MAI_WAITCHILD_H
#define MAI_WAITCHILD_H

#include <sys/types.h>

pid_t waitchild_start(int code, int *release);

#endif
