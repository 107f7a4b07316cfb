import threading
import time


class RepeatTimer(threading.Timer):
    def run(self):
        while not self.finished.wait(self.interval):
            self.function(*self.args, **self.kwargs)


def tick():
    print(time.strftime("%H:%M:%S"), "tick")


t = RepeatTimer(1.0, tick)
t.start()
time.sleep(5.5)
t.cancel()
print("stopped")
