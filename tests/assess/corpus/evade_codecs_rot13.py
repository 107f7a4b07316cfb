# expect: BLOCKED
# rules: MAI015
import codecs
eval(codecs.decode('cevag(1)', 'rot13'))
