# expect: LOW
# absent: MAI030
socket = {'port': 80}
print(socket.get('port'))
