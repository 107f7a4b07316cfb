# expect: LOW
# absent: MAI045
from ruamel.yaml import YAML
y = YAML(typ='safe')
