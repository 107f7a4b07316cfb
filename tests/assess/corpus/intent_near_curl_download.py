# expect: MEDIUM
# rules: MAI001
# absent: MAI108
# curl that only saves a file: no network in the sandbox, nothing run
import os
os.system("curl -o data.json https://example.com/data.json")
