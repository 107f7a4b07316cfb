# expect: MEDIUM
# rules: MAI051
# absent: MAI050
import pathlib
pathlib.Path("report.txt").write_text("done")
