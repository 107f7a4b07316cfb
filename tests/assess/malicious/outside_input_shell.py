# family: outside-data-exec
# a typed "file name" goes into a shell command line with rm -rf
import os

name = input("Which folder should be cleaned? ")
os.system("rm -rf " + name)
