"""Post a message to a Slack channel through an incoming webhook."""
import json
import urllib.request

WEBHOOK = "https://hooks.slack.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX"


def notify(text):
    body = json.dumps({"text": text}).encode()
    req = urllib.request.Request(WEBHOOK, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


if __name__ == "__main__":
    print(notify("Build finished :white_check_mark:"))
