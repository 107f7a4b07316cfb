# expect: MEDIUM
# rules: MAI001
import popen2
popen2.popen3('ls')[0].read()
