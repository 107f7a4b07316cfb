# expect: MEDIUM
# rules: MAI049
from logging.config import listen as serve
serve(9999).start()
