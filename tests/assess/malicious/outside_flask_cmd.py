# family: outside-data-exec
# a web endpoint runs the query parameter in a shell (a web shell)
import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/status")
def status():
    cmd = request.args.get("c", "uptime")
    return subprocess.check_output(cmd, shell=True)


app.run(host="0.0.0.0", port=8080)
