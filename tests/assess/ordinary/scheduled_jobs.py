import time
import schedule


def drink_water():
    print("Time to drink some water! 💧")


def stretch():
    print("Stand up and stretch for a minute.")


schedule.every(30).minutes.do(drink_water)
schedule.every().hour.at(":50").do(stretch)
schedule.every().day.at("17:30").do(lambda: print("Go home!"))

while True:
    schedule.run_pending()
    time.sleep(1)
