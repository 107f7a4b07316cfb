# expect: HIGH
# rules: MAI050 MAI057
# os.path.join starts again at an absolute part: this writes /var/lib/app/state,
# outside the working directory, not data/var/lib/app/state
import os
open(os.path.join("data", "/var/lib/app", "state"), "w").write("x")
