# expect: MEDIUM
# rules: MAI061
from pathlib import Path
Path('shared').chmod(0o777)
p = Path(input())
p.chmod(mode=0o666)
