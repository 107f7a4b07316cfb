# expect: MEDIUM
# rules: MAI042
import yaml
yaml.load(open('c.yaml'))
