import calendar
import datetime
import sys

year = int(sys.argv[1]) if len(sys.argv) > 1 else datetime.date.today().year
calendar.setfirstweekday(calendar.MONDAY)
print(calendar.TextCalendar().formatyear(year))
