import time
import pyperclip

history = []
last = None
print("Watching the clipboard, Ctrl-C to stop")
try:
    while True:
        text = pyperclip.paste()
        if text != last and text.strip():
            history.append(text)
            print(f"[{len(history)}] {text[:60]!r}")
            last = text
        time.sleep(0.5)
except KeyboardInterrupt:
    with open("clipboard_history.txt", "w") as f:
        f.write("\n---\n".join(history))
    print("saved", len(history), "entries")
