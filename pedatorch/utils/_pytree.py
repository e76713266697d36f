"""Nested containers ("pytrees") flattened into a list of leaves and rebuilt, as ``torch.utils._pytree``.

``torch.func`` needs this: ``vmap`` and ``grad`` accept tuples, lists and dicts of tensors, take them apart,
work on the tensors one by one, and put results back in the same shape.  Tuples, lists, dicts (keys in
insertion order), namedtuples and OrderedDicts are containers; everything else is a leaf.

    leaves, spec = tree_flatten(({"a": x}, [y, 3]))    # leaves == [x, y, 3]
    tree_unflatten([2 * l for l in leaves], spec)       # ({"a": 2x}, [2y, 6])
"""
from collections import OrderedDict

__all__ = ["TreeSpec", "LeafSpec", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_map", "tree_structure"]


class TreeSpec:
    """The shape of a container: its type, what rebuilding needs (dict keys, namedtuple class), its children."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, children_specs
        self.num_leaves = sum(c.num_leaves for c in children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and (self.type, self.context, self.children_specs)
                == (other.type, other.context, other.children_specs))

    def __repr__(self):
        inner = ", ".join(repr(c) for c in self.children_specs)
        name = getattr(self.type, "__name__", str(self.type))
        return f"TreeSpec({name}, {self.context}, [{inner}])"


class LeafSpec(TreeSpec):
    def __init__(self):
        self.type, self.context, self.children_specs, self.num_leaves = None, None, [], 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __repr__(self):
        return "*"


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(tree):
    """(children, context) of a container, or None for a leaf."""
    if isinstance(tree, (dict, OrderedDict)):
        return list(tree.values()), list(tree.keys())
    if _is_namedtuple(tree):
        return list(tree), None
    if isinstance(tree, (tuple, list)):
        return list(tree), None
    return None


def tree_flatten(tree, is_leaf=None):
    """(list of leaves in order, TreeSpec to rebuild ``tree``)."""
    if is_leaf is not None and is_leaf(tree):
        return [tree], LeafSpec()
    split = _children(tree)
    if split is None:
        return [tree], LeafSpec()
    children, context = split
    leaves, specs = [], []
    for child in children:
        child_leaves, child_spec = tree_flatten(child, is_leaf)
        leaves += child_leaves
        specs.append(child_spec)
    return leaves, TreeSpec(type(tree), context, specs)


def tree_unflatten(leaves, treespec):
    """Rebuild the container described by ``treespec`` around ``leaves``."""
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                         f"to a pytree that holds {treespec.num_leaves} items ({treespec}).")
    return _build(iter(leaves), treespec)


def _build(leaves, spec):
    if spec.is_leaf():
        return next(leaves)
    children = [_build(leaves, c) for c in spec.children_specs]
    if issubclass(spec.type, dict):
        return spec.type(zip(spec.context, children))
    if issubclass(spec.type, tuple) and hasattr(spec.type, "_fields"):
        return spec.type(*children)
    return spec.type(children)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``tree`` with ``func`` applied to each leaf (and the matching leaves of ``rests``)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec_leaves(r, spec) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def spec_leaves(tree, spec):
    """The leaves of ``tree``, which must have the structure ``spec`` (or be a leaf standing for all of it)."""
    leaves, own = tree_flatten(tree)
    if own != spec:
        raise ValueError(f"Tree structure mismatch: {own} vs {spec}")
    return leaves
