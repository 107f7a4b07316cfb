import sqlite3
from flask import Flask, g, redirect, render_template_string, request, url_for

app = Flask(__name__)
DATABASE = "guestbook.db"
PAGE = """
<!doctype html><title>Guestbook</title>
<h1>Guestbook</h1>
<form method=post><input name=name placeholder=Name> <input name=msg placeholder=Message>
<button>Sign</button></form>
<ul>{% for e in entries %}<li><b>{{ e[0] }}</b>: {{ e[1] }}</li>{% endfor %}</ul>
"""


def db():
    if "db" not in g:
        g.db = sqlite3.connect(DATABASE)
        g.db.execute("CREATE TABLE IF NOT EXISTS entries (name TEXT, msg TEXT)")
    return g.db


@app.teardown_appcontext
def close(_exc):
    d = g.pop("db", None)
    if d is not None:
        d.close()


@app.route("/", methods=["GET", "POST"])
def index():
    if request.method == "POST":
        db().execute("INSERT INTO entries VALUES (?, ?)", (request.form["name"], request.form["msg"]))
        db().commit()
        return redirect(url_for("index"))
    entries = db().execute("SELECT name, msg FROM entries ORDER BY rowid DESC").fetchall()
    return render_template_string(PAGE, entries=entries)


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=5000)
