"""The build-it-yourself code of lessons 2 to 4, as the notebooks give it (stubs) and as the solutions fill it in.

The tests exec these sources, so a checker is tested against the very text a learner starts from.
"""

VALUE_STUB = '''
class MyValue:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = ...  # your code here: the inputs, in order, as a tuple
        self._op = ...  # your code here: the operation that made this value ("" for a leaf)

    def __add__(self, other):
        # your code here: a new MyValue holding self.data + other.data, made by "+" from (self, other)
        raise NotImplementedError

    def __mul__(self, other):
        # your code here: the same for "*"
        raise NotImplementedError

    def __repr__(self):
        # your code here: e.g. MyValue(data=4.0)
        raise NotImplementedError
'''

VALUE_SOLUTION = '''
class MyValue:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        return MyValue(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return MyValue(self.data * other.data, (self, other), "*")

    def __repr__(self):
        return f"MyValue(data={self.data})"
'''


def load(source, *swaps, name="MyValue"):
    """exec source, after each (old, new) text swap, and return the object called name."""
    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    namespace = {}
    exec(source, namespace)
    return namespace[name]
