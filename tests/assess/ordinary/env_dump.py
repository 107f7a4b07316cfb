# Print the environment, sorted, with long values shortened (for debugging a setup).
import os

for key in sorted(os.environ):
    value = os.environ[key]
    if len(value) > 70:
        value = value[:67] + "..."
    print(f"{key:30} {value}")
