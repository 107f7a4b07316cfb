# expect: MEDIUM
# rules: MAI061
# a method chmod of an object takes its mode first, positionally
from pathlib import Path
p = Path(input())
p.chmod(0o777)
