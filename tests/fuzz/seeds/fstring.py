f"{a!r:{b}}" rb"\x00" u"\N{DASH}"
