"""Waiting on a file without polling it: the tests' and the benchmarks' one
way to wait until a file (a result.json, status.json) says something.

    until(path, ready, seconds, poll_s=0.02, watch_dir=None)

calls ready() now and again after every inotify event (through ctypes) that
names path's file in its directory (watch_dir, by default path's own: a
file created, written and closed, renamed in or out, removed), until it
returns something true, which until() returns; after seconds it returns
ready()'s last answer. The event is the kernel's word that the file changed,
so a waiter wakes on the writer's rename itself, where a poll every 20 ms
(or 1 ms) cost CPU all the while and woke up to one interval late.

Where inotify cannot see the writer it polls every poll_s seconds, as
before: a FUSE mount (the agent's mount mode) reports only what passes
through the mount, not its server's own writes to the directory underneath;
and a directory that does not exist yet has nothing to watch (until it
does). A watch whose directory is removed is set again on the new one, and
ready() is asked at least every second whatever the events: a lost event
costs a second, never the wait."""
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
    """An inotify watch of one directory, woken by events that name one file
    (name) or any (None)."""

    def __init__(self, directory, name=None):
        self.directory, self.name = os.fsencode(directory), name and os.fsencode(name)
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

    def wait(self, seconds):
        """Sleeps until an event about the file (or the directory itself, or
        a queue overflow) or seconds have passed."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return False
            if not self.watching:  # the directory is (re)created later
                time.sleep(min(left, 0.02))
                if self.arm():
                    return True
                continue
            if not select.select([self.fd], [], [], left)[0]:
                return False
            if self._relevant(os.read(self.fd, 65536)):
                return True

    def _relevant(self, data):
        hit, off = False, 0
        while off < len(data):
            _, mask, _, n = struct.unpack_from("iIII", data, off)
            name = data[off + 16:off + 16 + n].rstrip(b"\0")
            off += 16 + n
            if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                self.watching = False
                hit = True
            elif mask & IN_Q_OVERFLOW or self.name is None or name == self.name:
                hit = True
        if not self.watching:
            self.arm()
        return hit


def until(path, ready, seconds, poll_s=0.02, watch_dir=None):
    """ready()'s first true answer, waiting on path's directory (or
    watch_dir: the same directory seen from elsewhere, e.g. underneath a
    mount) at most seconds; else its last answer."""
    end = time.monotonic() + seconds
    directory = watch_dir or os.path.dirname(path) or "."
    watch = None
    if not on_fuse(directory):
        watch = DirWatch(directory, os.path.basename(path))
    try:
        v = ready()
        while not v:
            left = end - time.monotonic()
            if left <= 0:
                break
            if watch:
                watch.wait(min(left, RECHECK_S))
            else:
                time.sleep(min(left, poll_s))
            v = ready()
        return v
    finally:
        if watch:
            watch.close()
