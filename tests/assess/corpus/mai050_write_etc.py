# expect: HIGH
# rules: MAI050
with open('/etc/cron.d/x', 'w') as f:
    f.write('* * * * * root id')
