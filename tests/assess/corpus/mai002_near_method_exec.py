# expect: LOW
# absent: MAI002 MAI011
class Q:
    def execv(self, x):
        return x
q = Q()
q.execv('a')
cursor = q
cursor.execute('select 1')
