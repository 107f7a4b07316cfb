# expect: MEDIUM
# rules: MAI049
import logging.config
t = logging.config.listen(9999)
t.start()
