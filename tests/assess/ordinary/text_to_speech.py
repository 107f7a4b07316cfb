import pyttsx3

engine = pyttsx3.init()
engine.setProperty("rate", 160)
while True:
    text = input("Say (empty to stop): ")
    if not text:
        break
    engine.say(text)
    engine.runAndWait()
