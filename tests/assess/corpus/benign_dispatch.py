# expect: LOW
# absent: MAI014
class Calc:
    def op_add(self, a, b):
        return a + b
    def run(self, op, a, b):
        return getattr(self, 'op_' + op)(a, b)
print(Calc().run('add', 1, 2))
