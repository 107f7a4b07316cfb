"""Mail the daily report (report.csv) to the team."""
import smtplib
import ssl
from email.message import EmailMessage
from pathlib import Path

SMTP_HOST = "smtp.example.com"
SMTP_PORT = 465
SENDER = "reports@example.com"
PASSWORD = "app-password-here"
RECIPIENTS = ["team@example.com"]


def main():
    msg = EmailMessage()
    msg["Subject"] = "Daily report"
    msg["From"] = SENDER
    msg["To"] = ", ".join(RECIPIENTS)
    msg.set_content("Hi all,\n\nthe daily report is attached.\n\nCheers")
    report = Path("report.csv")
    msg.add_attachment(report.read_bytes(), maintype="text", subtype="csv", filename=report.name)
    ctx = ssl.create_default_context()
    with smtplib.SMTP_SSL(SMTP_HOST, SMTP_PORT, context=ctx) as s:
        s.login(SENDER, PASSWORD)
        s.send_message(msg)
    print("sent to", msg["To"])


if __name__ == "__main__":
    main()
