# expect: MEDIUM
# rules: MAI036
import smtplib
smtplib.SMTP('localhost')
