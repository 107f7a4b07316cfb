import time
import psutil

print(f"{'time':8} {'cpu%':>5} {'mem%':>5} {'disk%':>6} {'sent MB':>8} {'recv MB':>8}")
while True:
    net = psutil.net_io_counters()
    print(f"{time.strftime('%H:%M:%S'):8} {psutil.cpu_percent(interval=1):5.1f} "
          f"{psutil.virtual_memory().percent:5.1f} {psutil.disk_usage('/').percent:6.1f} "
          f"{net.bytes_sent / 2**20:8.1f} {net.bytes_recv / 2**20:8.1f}")
    time.sleep(4)
