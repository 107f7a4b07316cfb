import csv
import datetime
import smtplib
from email.mime.text import MIMEText

MY_EMAIL = "me@example.org"
MY_PASSWORD = "abcd1234"

today = (datetime.date.today().month, datetime.date.today().day)
with open("birthdays.csv") as f:
    for row in csv.DictReader(f):
        if (int(row["month"]), int(row["day"])) == today:
            body = f"Happy birthday, {row['name']}!\n\nAll the best,\nMe"
            msg = MIMEText(body)
            msg["Subject"] = "Happy Birthday!"
            msg["From"] = MY_EMAIL
            msg["To"] = row["email"]
            with smtplib.SMTP("smtp.gmail.com", 587) as connection:
                connection.starttls()
                connection.login(user=MY_EMAIL, password=MY_PASSWORD)
                connection.sendmail(MY_EMAIL, row["email"], msg.as_string())
            print("sent birthday mail to", row["name"])
