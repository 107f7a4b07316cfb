# expect: MEDIUM
# rules: MAI033
# absent: MAI104
# one named variable of the environment is the script's own setting
import os, requests
key = os.environ["WEATHER_API_KEY"]
r = requests.get("https://api.example.com/v1/now", params={"key": key, "city": "Oslo"})
print(r.json())
