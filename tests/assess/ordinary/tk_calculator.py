import tkinter as tk

root = tk.Tk()
root.title("Calculator")
expr = tk.StringVar()
tk.Entry(root, textvariable=expr, font=("Arial", 18), justify="right").grid(row=0, column=0, columnspan=4)


def press(key):
    if key == "=":
        try:
            expr.set(str(eval(expr.get())))
        except Exception:
            expr.set("error")
    elif key == "C":
        expr.set("")
    else:
        expr.set(expr.get() + key)


keys = ["7", "8", "9", "/", "4", "5", "6", "*", "1", "2", "3", "-", "0", "C", "=", "+"]
for i, k in enumerate(keys):
    tk.Button(root, text=k, width=5, height=2, command=lambda k=k: press(k)).grid(row=1 + i // 4, column=i % 4)
root.mainloop()
