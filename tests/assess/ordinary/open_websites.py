import webbrowser

MORNING = [
    "https://mail.google.com",
    "https://calendar.google.com",
    "https://news.ycombinator.com",
]
for url in MORNING:
    webbrowser.open_new_tab(url)
