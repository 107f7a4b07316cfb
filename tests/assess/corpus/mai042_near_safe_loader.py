# expect: LOW
# absent: MAI042
import yaml
yaml.load(open('c.yaml'), Loader=yaml.SafeLoader)
