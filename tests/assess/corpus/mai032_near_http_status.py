# expect: LOW
# absent: MAI032
from http import HTTPStatus
print(HTTPStatus.OK)
