import psutil

procs = []
for p in psutil.process_iter(["pid", "name", "memory_info", "username"]):
    try:
        procs.append((p.info["memory_info"].rss, p.info["pid"], p.info["name"], p.info["username"]))
    except (psutil.NoSuchProcess, psutil.AccessDenied, TypeError):
        pass
for rss, pid, name, user in sorted(procs, reverse=True)[:10]:
    print(f"{pid:7} {rss / 2**20:8.1f} MB  {name}  ({user})")
