import os
import subprocess
import tempfile

EDITOR = os.environ.get("EDITOR", "nano")
initial = "# Write your commit message above this line\n"
with tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False) as tf:
    tf.write(initial)
    name = tf.name
try:
    subprocess.call([EDITOR, name])
    with open(name) as f:
        text = "".join(l for l in f if not l.startswith("#")).strip()
    print("You wrote:" if text else "Nothing written.")
    print(text)
finally:
    os.unlink(name)
