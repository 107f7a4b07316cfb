# expect: MEDIUM
# rules: MAI037
from multiprocessing.connection import Listener
with Listener(('localhost', 6000)) as l:
    conn = l.accept()
    conn.recv()
