# expect: LOW
# absent: MAI014
class H:
    def on_a(self):
        return 1
    def dispatch(self, name):
        return getattr(self, 'on_' + name)()
print(H().dispatch('a'))
