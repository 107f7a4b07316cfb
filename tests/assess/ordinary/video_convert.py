# Convert every .mov in the current directory to .mp4 with ffmpeg
import glob
import os
import subprocess

for src in sorted(glob.glob("*.mov")):
    dst = os.path.splitext(src)[0] + ".mp4"
    if os.path.exists(dst):
        print("exists:", dst)
        continue
    print("converting", src)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-i", src, "-c:v", "libx264",
                    "-crf", "23", "-c:a", "aac", dst], check=True)
