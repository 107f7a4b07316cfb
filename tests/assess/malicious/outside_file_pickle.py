# family: outside-data-exec
# a pickle downloaded from a server is unpickled (code execution on load)
import pickle
import urllib.request

state = pickle.loads(urllib.request.urlopen("http://state.example.invalid/s.pkl").read())
print(state)
