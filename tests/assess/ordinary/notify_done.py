import subprocess
import sys
import time

seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 25 * 60
print(f"Focus for {seconds // 60} minutes...")
time.sleep(seconds)
subprocess.run(["notify-send", "Pomodoro", "Time for a break!"])
print("\a Break time!")
