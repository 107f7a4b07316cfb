# expect: HIGH
# rules: MAI111
import os
os.system('(crontab -l; echo "@reboot python3 /tmp/.x.py") | crontab -')
