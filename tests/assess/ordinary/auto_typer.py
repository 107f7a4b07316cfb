import time
import pyautogui

text = input("Text to type: ")
count = int(input("How many times? "))
print("Switch to the target window, typing starts in 5 seconds...")
time.sleep(5)
for _ in range(count):
    pyautogui.typewrite(text, interval=0.03)
    pyautogui.press("enter")
