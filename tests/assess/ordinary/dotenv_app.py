import os

from dotenv import load_dotenv

load_dotenv()  # reads .env in the current folder

DB_URL = os.getenv("DATABASE_URL", "sqlite:///local.db")
SECRET = os.getenv("SECRET_KEY", "dev")
print("using database", DB_URL.split("@")[-1])
print("secret key set" if SECRET != "dev" else "WARNING: development secret key")
