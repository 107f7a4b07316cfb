import configparser
import os

path = "settings.ini"
cfg = configparser.ConfigParser()
if not os.path.exists(path):
    cfg["window"] = {"width": "800", "height": "600", "fullscreen": "no"}
    cfg["audio"] = {"volume": "70", "muted": "no"}
    with open(path, "w") as f:
        cfg.write(f)
    print("created", path)
cfg.read(path)
w = cfg.getint("window", "width")
h = cfg.getint("window", "height")
print(f"window {w}x{h}, fullscreen={cfg.getboolean('window', 'fullscreen')}")
print(f"volume {cfg['audio']['volume']}%")
