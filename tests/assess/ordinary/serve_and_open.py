import subprocess
import sys
import time
import webbrowser

PORT = 8000
server = subprocess.Popen([sys.executable, "-m", "http.server", str(PORT)])
try:
    time.sleep(1)
    webbrowser.open(f"http://localhost:{PORT}/")
    print("serving; Ctrl-C to stop")
    server.wait()
except KeyboardInterrupt:
    server.terminate()
