import requests

def public_ip():
    return requests.get("https://api.ipify.org?format=json", timeout=5).json()["ip"]

if __name__ == "__main__":
    try:
        print("Your public IP is", public_ip())
    except requests.RequestException as err:
        print("Could not determine the public IP:", err)
