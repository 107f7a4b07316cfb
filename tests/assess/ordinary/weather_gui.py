import tkinter as tk
from tkinter import messagebox

import requests

CITIES = {"Berlin": (52.52, 13.41), "Madrid": (40.42, -3.70), "Oslo": (59.91, 10.75)}


def show():
    lat, lon = CITIES[city.get()]
    try:
        r = requests.get("https://api.open-meteo.com/v1/forecast",
                         params={"latitude": lat, "longitude": lon, "current_weather": True}, timeout=10)
        w = r.json()["current_weather"]
    except Exception as e:
        messagebox.showerror("Error", str(e))
        return
    result.config(text=f"{w['temperature']} °C, wind {w['windspeed']} km/h")


root = tk.Tk()
root.title("Weather")
city = tk.StringVar(value="Berlin")
tk.OptionMenu(root, city, *CITIES).pack(padx=20, pady=10)
tk.Button(root, text="Get weather", command=show).pack()
result = tk.Label(root, text="", font=("Arial", 16))
result.pack(padx=20, pady=20)
root.mainloop()
