#!/usr/bin/env python3
import smtplib
import sys
from email.message import EmailMessage

CONFIG = {
    "host": "mail.example.net",
    "port": 587,
    "user": "reminders@example.net",
    "password": "s3cret",
    "to": "me@example.net",
}


def send(subject, text):
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = CONFIG["user"], CONFIG["to"], subject
    m.set_content(text)
    with smtplib.SMTP(CONFIG["host"], CONFIG["port"], timeout=20) as s:
        s.ehlo()
        s.starttls()
        s.login(CONFIG["user"], CONFIG["password"])
        s.send_message(m)


if __name__ == "__main__":
    subject = sys.argv[1] if len(sys.argv) > 1 else "Reminder"
    send(subject, " ".join(sys.argv[2:]) or "Don't forget!")
    print("reminder sent")
