import logging
import logging.config

LOGGING = {
    "version": 1,
    "formatters": {"plain": {"format": "%(asctime)s [%(levelname)s] %(name)s: %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "level": "INFO"},
        "file": {"class": "logging.FileHandler", "filename": "app.log", "formatter": "plain"},
    },
    "root": {"handlers": ["console", "file"], "level": "DEBUG"},
}

logging.config.dictConfig(LOGGING)
log = logging.getLogger("app")


def divide(a, b):
    log.debug("divide(%s, %s)", a, b)
    return a / b


if __name__ == "__main__":
    log.info("application started")
    for a, b in [(10, 2), (3, 0), (7, 7)]:
        try:
            log.info("%s / %s = %s", a, b, divide(a, b))
        except ZeroDivisionError:
            log.error("cannot divide %s by zero", a)
    log.info("application finished")
