# expect: MEDIUM
# rules: MAI045
from ruamel.yaml import YAML
y = YAML(typ='unsafe')
