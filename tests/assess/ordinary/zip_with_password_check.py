import getpass
import zipfile

name = input("zip file: ")
with zipfile.ZipFile(name) as z:
    pwd = getpass.getpass("password: ").encode()
    try:
        z.extractall("unzipped", pwd=pwd)
        print("extracted to ./unzipped")
    except RuntimeError as e:
        print("wrong password?", e)
