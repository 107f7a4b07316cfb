import json
import os
import tempfile


def atomic_write_json(path, data):
    """Write JSON so that readers never see a half-written file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


if __name__ == "__main__":
    atomic_write_json("state.json", {"counter": 42, "items": ["a", "b"]})
    print(open("state.json").read())
