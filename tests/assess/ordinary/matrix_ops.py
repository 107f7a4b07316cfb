def matmul(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]


def transpose(m):
    return [list(r) for r in zip(*m)]


def determinant(m):
    if len(m) == 1:
        return m[0][0]
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return sum((-1) ** c * m[0][c] * determinant([row[:c] + row[c + 1:] for row in m[1:]])
               for c in range(len(m)))


A = [[1, 2, 3], [0, 1, 4], [5, 6, 0]]
B = [[7, 8], [9, 10], [11, 12]]
print("A x B =", matmul(A, B))
print("A^T =", transpose(A))
print("det(A) =", determinant(A))
