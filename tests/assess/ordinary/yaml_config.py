import sys

import yaml

DEFAULT = """
server:
  host: 127.0.0.1
  port: 8080
jobs:
  - name: cleanup
    every: 1h
  - name: report
    every: 24h
"""

if len(sys.argv) > 1:
    with open(sys.argv[1]) as f:
        cfg = yaml.safe_load(f)
else:
    cfg = yaml.safe_load(DEFAULT)

print(f"server on {cfg['server']['host']}:{cfg['server']['port']}")
for job in cfg.get("jobs", []):
    print(f"  job {job['name']} every {job['every']}")
