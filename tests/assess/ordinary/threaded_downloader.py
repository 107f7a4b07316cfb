import os
import threading
import urllib.request

URLS = [
    "https://www.gutenberg.org/cache/epub/1342/pg1342.txt",
    "https://www.gutenberg.org/cache/epub/84/pg84.txt",
    "https://www.gutenberg.org/cache/epub/11/pg11.txt",
    "https://www.gutenberg.org/cache/epub/2701/pg2701.txt",
]
lock = threading.Lock()
done = []


def fetch(url):
    name = os.path.join("books", url.rsplit("/", 1)[-1])
    urllib.request.urlretrieve(url, name)
    with lock:
        done.append(name)
        print(f"[{len(done)}/{len(URLS)}] {name}")


os.makedirs("books", exist_ok=True)
threads = [threading.Thread(target=fetch, args=(u,)) for u in URLS]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("all downloads finished")
