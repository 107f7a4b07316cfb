import socket

HOST, PORT = "127.0.0.1", 5000

with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as srv:
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((HOST, PORT))
    srv.listen()
    print(f"echo server on {HOST}:{PORT}")
    while True:
        conn, addr = srv.accept()
        with conn:
            print("connection from", addr)
            while data := conn.recv(1024):
                conn.sendall(data.upper())
