"""Reads settings from config.json, falling back to defaults."""
import json
import os

DEFAULTS = {
    "username": "guest",
    "theme": "light",
    "font_size": 12,
    "autosave": True,
    "recent_files": [],
}

CONFIG_FILE = "config.json"


def load_config(path=CONFIG_FILE):
    cfg = dict(DEFAULTS)
    if os.path.exists(path):
        with open(path) as f:
            try:
                cfg.update(json.load(f))
            except json.JSONDecodeError:
                print("config.json is broken, using defaults")
    return cfg


def save_config(cfg, path=CONFIG_FILE):
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)


if __name__ == "__main__":
    config = load_config()
    for key, value in config.items():
        print(f"{key:15} = {value!r}")
    config["recent_files"] = (config["recent_files"] + ["notes.txt"])[-5:]
    save_config(config)
