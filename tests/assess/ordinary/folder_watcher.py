import time

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer


class Printer(FileSystemEventHandler):
    def on_any_event(self, event):
        if not event.is_directory:
            print(f"{time.strftime('%H:%M:%S')} {event.event_type:8} {event.src_path}")


observer = Observer()
observer.schedule(Printer(), ".", recursive=True)
observer.start()
try:
    while True:
        time.sleep(1)
except KeyboardInterrupt:
    observer.stop()
observer.join()
