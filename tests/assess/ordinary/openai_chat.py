import os
import sys

import requests

API_KEY = os.environ.get("OPENAI_API_KEY")
if not API_KEY:
    sys.exit("Set OPENAI_API_KEY first")

question = " ".join(sys.argv[1:]) or "Tell me a fun fact about octopuses."
resp = requests.post(
    "https://api.openai.com/v1/chat/completions",
    headers={"Authorization": f"Bearer {API_KEY}"},
    json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": question}]},
    timeout=60,
)
resp.raise_for_status()
print(resp.json()["choices"][0]["message"]["content"])
