"""Waiting on files without polling them: the tests' and the benchmarks'
one way to wait until a file (a result.json, status.json) says something.

    until(path, ready, seconds, poll_s=0.02, watch_dir=None)

calls ready() now and again after every inotify event (through ctypes) that
names path's file in its directory (watch_dir, by default path's own: a
file created, written and closed, renamed in or out, removed), until it
returns something true, which until() returns; after seconds it returns
ready()'s last answer. The event is the kernel's word that the file changed,
so a waiter wakes on the writer's rename itself, where a poll every 20 ms
(or 1 ms) cost CPU all the while and woke up to one interval late.
DirWatch(directory).changes(seconds) gives the names of the files changed,
for a wait on many files at once.

Where inotify cannot see the writer, or no inotify instance is left, it
polls every poll_s seconds, as before: a FUSE mount (the agent's mount mode) reports only what passes
through the mount, not its server's own writes to the directory underneath
(underneath(path, pid) names that directory through the agent's own
descriptor, which inotify can watch); and a directory that does not exist
yet has nothing to watch (until it does). A watch whose directory is
removed is set again on the new one, and ready() is asked at least every
second whatever the events: a lost event costs a second, never the wait."""
import ctypes
import os
import select
import struct
import time

IN_MODIFY = 0x2
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x1000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC
MASK = (IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
FUSE_SUPER_MAGIC = 0x65735546
# ready() is asked at least this often, events or not.
RECHECK_S = 1.0

_libc = ctypes.CDLL(None, use_errno=True)
_libc.inotify_add_watch.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)


def on_fuse(directory):
    """directory is on a FUSE file system (statfs f_type)."""
    buf = ctypes.create_string_buffer(256)  # struct statfs, f_type first
    if _libc.statfs(os.fsencode(directory), buf) != 0:
        return False
    return struct.unpack_from("l", buf)[0] & 0xffffffff == FUSE_SUPER_MAGIC


class DirWatch:
    """An inotify watch of one directory: the names of the files it
    reports changed."""

    # In the names changes() returns: anything may have changed (the queue
    # overflowed, or the directory was replaced and is watched anew).
    ANY = ""

    def __init__(self, directory):
        self.directory = os.fsencode(directory)
        self.fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.watching = False
        self.arm()

    def arm(self):
        """Sets the watch (again); False while the directory is missing."""
        self.watching = _libc.inotify_add_watch(self.fd, self.directory, MASK) >= 0
        return self.watching

    def close(self):
        os.close(self.fd)

    def changes(self, seconds):
        """The names of the files changed (maybe ANY), once there are any;
        an empty set after seconds without."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return set()
            if not self.watching:  # the directory is (re)created later
                time.sleep(min(left, 0.02))
                if self.arm():
                    return {self.ANY}
                continue
            if select.select([self.fd], [], [], left)[0]:
                names = self._names(os.read(self.fd, 65536))
                if names:
                    return names

    def _names(self, data):
        names, off = set(), 0
        while off < len(data):
            _, mask, _, n = struct.unpack_from("iIII", data, off)
            name = data[off + 16:off + 16 + n].rstrip(b"\0")
            off += 16 + n
            if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                self.watching = False
                names.add(self.ANY)
            elif mask & IN_Q_OVERFLOW:
                names.add(self.ANY)
            else:
                names.add(os.fsdecode(name))
        if not self.watching:
            self.arm()
        return names


def watch(directory):
    """A DirWatch of directory, or None where inotify cannot serve: the
    directory is on a FUSE mount, or no inotify instance is left (the
    user's max_user_instances, shared with every agent on the machine):
    the caller polls then."""
    if on_fuse(directory):
        return None
    try:
        return DirWatch(directory)
    except OSError:
        return None


def underneath(path, pid):
    """The directory underneath the mount at path, as process pid holds it
    open (the agent in mount mode works there): "/proc/PID/fd/N", which
    inotify can watch. None when pid holds no such descriptor."""
    top = os.stat(path)
    fds = "/proc/%d/fd" % pid
    for fd in os.listdir(fds):
        link = os.path.join(fds, fd)
        try:
            if os.readlink(link) != path:
                continue
            st = os.stat(link)
        except OSError:
            continue
        if st.st_dev != top.st_dev and os.path.isdir(link):
            return link
    return None


def until(path, ready, seconds, poll_s=0.02, watch_dir=None):
    """ready()'s first true answer, waiting on path's directory (or
    watch_dir: the same directory seen from elsewhere, e.g. underneath a
    mount) at most seconds; else its last answer."""
    end = time.monotonic() + seconds
    directory = watch_dir or os.path.dirname(path) or "."
    name = os.path.basename(path)
    w = watch(directory)
    try:
        v, asked = ready(), time.monotonic()
        while not v:
            now = time.monotonic()
            if now >= end:
                break
            if not w:
                time.sleep(min(end - now, poll_s))
            elif now < asked + RECHECK_S:
                if not w.changes(min(end, asked + RECHECK_S) - now) & {name, DirWatch.ANY}:
                    continue  # another file's change, or the time to ask anyway
            v, asked = ready(), time.monotonic()
        return v
    finally:
        if w:
            w.close()
