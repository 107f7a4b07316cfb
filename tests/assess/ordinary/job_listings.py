import requests
from bs4 import BeautifulSoup

URL = "https://realpython.github.io/fake-jobs/"
page = requests.get(URL)
soup = BeautifulSoup(page.content, "html.parser")
results = soup.find(id="ResultsContainer")
python_jobs = results.find_all("h2", string=lambda text: "python" in text.lower())
cards = [h2.parent.parent.parent for h2 in python_jobs]
for card in cards:
    title = card.find("h2", class_="title").text.strip()
    company = card.find("h3", class_="company").text.strip()
    location = card.find("p", class_="location").text.strip()
    link = card.find_all("a")[1]["href"]
    print(title, "|", company, "|", location)
    print("  apply here:", link)
