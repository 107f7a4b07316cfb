#include "writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "names.h"

const char *drop_writer_from_to_string(enum drop_writer_from f)
{
	switch (f) {
	case DROP_WRITER_OWNER: return "file_owner";
	case DROP_WRITER_REQUEST: return "request";
	case DROP_WRITER_UNKNOWN: break;
	}
	return "unknown";
}

void drop_writer_from_owner(struct drop_writer *w, uid_t uid, gid_t gid)
{
	memset(w, 0, sizeof(*w));
	w->from = DROP_WRITER_OWNER;
	w->uid = uid;
	w->gid = gid;
}

/* The "Name:" and "Tgid:" lines of /proc/<tid>/status: the thread's name
 * is the process's unless the program renamed its threads, so the name is
 * taken from the thread group leader when that differs. */
static bool read_status(pid_t tid, pid_t *tgid, char *name, size_t size)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *t = strstr(buf, "\nTgid:\t");
	if (!t || strncmp(buf, "Name:\t", 6) != 0)
		return false;
	*tgid = (pid_t)strtol(t + 7, NULL, 10);
	size_t len = strcspn(buf + 6, "\n");
	if (len >= size)
		len = size - 1;
	memcpy(name, buf + 6, len);
	name[len] = '\0';
	return true;
}

void drop_writer_from_request(struct drop_writer *w, uid_t uid, gid_t gid, pid_t tid)
{
	memset(w, 0, sizeof(*w));
	w->from = DROP_WRITER_REQUEST;
	w->uid = uid;
	w->gid = gid;
	w->pid = tid;
	pid_t tgid = 0;
	if (tid > 0 && read_status(tid, &tgid, w->process, sizeof(w->process)) && tgid > 0 &&
	    tgid != tid) {
		w->pid = tgid;
		if (!read_status(tgid, &tgid, w->process, sizeof(w->process)))
			w->process[0] = '\0';
	}
}

json_t *drop_writer_to_json(const struct drop_writer *w)
{
	if (w->from == DROP_WRITER_UNKNOWN)
		return NULL;
	json_t *o = json_pack("{s:I, s:I, s:s}", "uid", (json_int_t)w->uid, "gid",
			      (json_int_t)w->gid, "from", drop_writer_from_to_string(w->from));
	if (w->pid > 0)
		json_object_set_new(o, "pid", json_integer(w->pid));
	if (w->process[0]) {
		_cleanup_free_ char *p = names_printable(w->process);
		json_object_set_new(o, "process", json_string(p));
	}
	return o;
}
