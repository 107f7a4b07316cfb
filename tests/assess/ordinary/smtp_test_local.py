import smtplib
from email.message import EmailMessage

msg = EmailMessage()
msg["From"] = "test@localhost"
msg["To"] = "me@localhost"
msg["Subject"] = "test message"
msg.set_content("If you can read this, the local mail server works.")

with smtplib.SMTP("localhost", 1025) as s:
    s.send_message(msg)
print("sent")
