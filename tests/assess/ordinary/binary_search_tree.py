class Node:
    __slots__ = ("key", "left", "right")

    def __init__(self, key):
        self.key, self.left, self.right = key, None, None


class BST:
    def __init__(self):
        self.root = None

    def insert(self, key):
        if self.root is None:
            self.root = Node(key)
            return
        n = self.root
        while True:
            if key < n.key:
                if n.left is None:
                    n.left = Node(key)
                    return
                n = n.left
            else:
                if n.right is None:
                    n.right = Node(key)
                    return
                n = n.right

    def __contains__(self, key):
        n = self.root
        while n:
            if key == n.key:
                return True
            n = n.left if key < n.key else n.right
        return False

    def inorder(self, n="start"):
        if n == "start":
            n = self.root
        if n:
            yield from self.inorder(n.left)
            yield n.key
            yield from self.inorder(n.right)


t = BST()
for k in [50, 30, 70, 20, 40, 60, 80, 35]:
    t.insert(k)
print(list(t.inorder()))
print(40 in t, 45 in t)
