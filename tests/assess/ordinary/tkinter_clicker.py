import tkinter as tk


class Clicker(tk.Tk):
    def __init__(self):
        super().__init__()
        self.title("Clicker")
        self.count = 0
        self.label = tk.Label(self, text="0 clicks", font=("Arial", 24))
        self.label.pack(padx=40, pady=20)
        tk.Button(self, text="Click me!", command=self.click).pack(pady=5)
        tk.Button(self, text="Reset", command=self.reset).pack(pady=5)

    def click(self):
        self.count += 1
        self.label.config(text=f"{self.count} clicks")

    def reset(self):
        self.count = 0
        self.label.config(text="0 clicks")


if __name__ == "__main__":
    Clicker().mainloop()
