# expect: LOW
name = 'x'
print(f'{name!r:>10} {{literal}} {3 + 4}')
print(rb'\x00raw', b'bytes', u'uni', F'''{name}''')
