# expect: LOW
import platform, re, ast
print(platform.system())
re.compile('x')
ast.literal_eval('1')
class Model:
    def eval(self):
        return self
Model().eval()
