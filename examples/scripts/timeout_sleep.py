# expect: level LOW, state completed, verdict timeout (sleeps past the wall-clock limit)
import time

time.sleep(3600)
