"""Settings from environment variables with defaults, for a small service."""
import os

DEBUG = os.environ.get("APP_DEBUG", "0") == "1"
PORT = int(os.environ.get("APP_PORT", "8000"))
DATA_DIR = os.environ.get("APP_DATA_DIR", "data")
WORKERS = int(os.getenv("APP_WORKERS", os.cpu_count() or 1))

if __name__ == "__main__":
    print(f"debug={DEBUG} port={PORT} data_dir={DATA_DIR} workers={WORKERS}")
    os.makedirs(DATA_DIR, exist_ok=True)
