# expect: MEDIUM
# absent: MAI057 MAI050
# a relative path that names system directories inside it is a file under
# the working directory (data/var/lib/app/state), not a system file
import os
open(os.path.join("data", "var/lib/app", "state"), "w").write("x")
