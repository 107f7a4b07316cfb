import io
import sys
import tokenize


def strip(source):
    out = []
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            out.append(tok)
    return tokenize.untokenize(out)


print(strip(open(sys.argv[1]).read()))
