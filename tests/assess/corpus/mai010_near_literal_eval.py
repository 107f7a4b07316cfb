# expect: LOW
# absent: MAI010
import ast
print(ast.literal_eval('[1, 2]'))
class M:
    def eval(self):
        return 1
M().eval()
