# expect: BLOCKED
# rules: MAI131
import operator, os
name = bytes.fromhex("73797374656d").decode()
operator.attrgetter(name)(os)("id")
