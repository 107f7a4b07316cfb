from datetime import datetime
from zoneinfo import ZoneInfo

ZONES = ["UTC", "America/Los_Angeles", "America/New_York", "Europe/London",
         "Europe/Berlin", "Asia/Kolkata", "Asia/Tokyo", "Australia/Sydney"]

now = datetime.now(ZoneInfo("UTC"))
for z in ZONES:
    local = now.astimezone(ZoneInfo(z))
    print(f"{z:22} {local:%a %H:%M}  (UTC{local:%z})")
