import os
import time
from datetime import datetime

import pyautogui

os.makedirs("screenshots", exist_ok=True)
for _ in range(60):
    name = datetime.now().strftime("screenshots/%Y%m%d-%H%M%S.png")
    pyautogui.screenshot(name)
    print("saved", name)
    time.sleep(60)
