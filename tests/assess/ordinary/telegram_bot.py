"""Echo bot for Telegram using the Bot API over plain HTTPS (long polling)."""
import time

import requests

TOKEN = "123456789:AAExampleTokenReplaceMe"
API = f"https://api.telegram.org/bot{TOKEN}"


def main():
    offset = None
    while True:
        try:
            r = requests.get(f"{API}/getUpdates", params={"timeout": 30, "offset": offset}, timeout=40)
            updates = r.json().get("result", [])
        except requests.RequestException as e:
            print("network error:", e)
            time.sleep(5)
            continue
        for u in updates:
            offset = u["update_id"] + 1
            msg = u.get("message")
            if msg and "text" in msg:
                requests.post(f"{API}/sendMessage", timeout=10,
                              json={"chat_id": msg["chat"]["id"], "text": "You said: " + msg["text"]})


if __name__ == "__main__":
    main()
