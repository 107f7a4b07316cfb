from pytube import YouTube

url = input("YouTube link: ")
yt = YouTube(url)
print("Title:", yt.title)
print("Length:", yt.length, "seconds")
stream = yt.streams.get_highest_resolution()
print("Downloading...")
stream.download(output_path=".")
print("Done!")
