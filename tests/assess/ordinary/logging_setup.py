import logging
import logging.handlers
import random
import time

logger = logging.getLogger("worker")
logger.setLevel(logging.DEBUG)

console = logging.StreamHandler()
console.setLevel(logging.INFO)
console.setFormatter(logging.Formatter("%(levelname)-8s %(message)s"))

rotating = logging.handlers.RotatingFileHandler("worker.log", maxBytes=200_000, backupCount=3)
rotating.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))

logger.addHandler(console)
logger.addHandler(rotating)

for job in range(10):
    logger.debug("starting job %d", job)
    time.sleep(0.05)
    if random.random() < 0.2:
        logger.warning("job %d was slow", job)
    try:
        if random.random() < 0.1:
            raise ValueError("bad input")
        logger.info("job %d ok", job)
    except ValueError:
        logger.exception("job %d failed", job)
