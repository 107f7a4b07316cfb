import sys
import nltk
from nltk.corpus import stopwords
from nltk.tokenize import word_tokenize

nltk.download("stopwords", quiet=True)
nltk.download("punkt", quiet=True)
stops = set(stopwords.words("english"))
text = open(sys.argv[1]).read()
words = [w for w in word_tokenize(text) if w.isalpha() and w.lower() not in stops]
print(" ".join(words))
