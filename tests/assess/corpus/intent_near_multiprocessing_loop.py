# expect: MEDIUM
# rules: MAI024
def work(n):
    print(n * n)
import multiprocessing
for i in range(4):
    multiprocessing.Process(target=work, args=(i,)).start()
