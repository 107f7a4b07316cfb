import os
import platform
import datetime


def clear():
    if platform.system() == "Windows":
        os.system("cls")
    else:
        os.system("clear")


def menu():
    while True:
        clear()
        print("=== Main menu ===")
        print("1. Show date and time")
        print("2. Show current folder")
        print("3. List files")
        print("0. Exit")
        c = input("> ")
        if c == "1":
            print(datetime.datetime.now().strftime("%A %d %B %Y, %H:%M:%S"))
        elif c == "2":
            print(os.getcwd())
        elif c == "3":
            for f in sorted(os.listdir(".")):
                print(" ", f)
        elif c == "0":
            break
        input("\nPress Enter to continue...")


menu()
