from flask import Flask, jsonify, request

app = Flask(__name__)
todos = []


@app.route("/")
def index():
    return "<h1>Hello from Flask!</h1>"


@app.route("/api/todos", methods=["GET", "POST"])
def api_todos():
    if request.method == "POST":
        item = request.get_json(force=True)
        todos.append({"id": len(todos) + 1, "title": item.get("title", "")})
        return jsonify(todos[-1]), 201
    return jsonify(todos)


if __name__ == "__main__":
    app.run(debug=False, port=5000)
