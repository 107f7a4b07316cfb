def f(
  a,
  *b, **c):
	if a:
		return [x for x in b if x]
