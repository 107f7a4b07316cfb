"""A tiny client class for a REST API, with retries."""
import time
import logging

import requests

log = logging.getLogger(__name__)


class Client:
    def __init__(self, base_url="https://reqres.in/api", retries=3):
        self.base = base_url.rstrip("/")
        self.retries = retries
        self.session = requests.Session()
        self.session.headers.update({"User-Agent": "api-client/1.0"})

    def _get(self, path, **params):
        for attempt in range(1, self.retries + 1):
            try:
                r = self.session.get(f"{self.base}/{path}", params=params, timeout=10)
                r.raise_for_status()
                return r.json()
            except requests.RequestException as e:
                log.warning("attempt %d failed: %s", attempt, e)
                time.sleep(2 ** attempt)
        raise RuntimeError(f"giving up on {path}")

    def users(self, page=1):
        return self._get("users", page=page)["data"]


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    c = Client()
    for u in c.users():
        print(u["id"], u["first_name"], u["last_name"], u["email"])
