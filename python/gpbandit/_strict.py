"""One-line argument errors for the extension module.

pybind11 answers a call whose arguments match no signature with a TypeError that lists every
signature and repeats the arguments ("incompatible function arguments ... Invoked with: ...", many
lines, arrays printed whole). ``install(module)`` wraps every function, static method and method
of the extension so that such a call raises a one-line TypeError naming the function and the
first argument that does not fit, e.g.::

    TypeError: Domain.grid(): argument 'counts': expected a sequence of integers, got list [3, 2.5]

Every other exception (InvalidArgument from the engine, TypeErrors raised by the bindings
themselves) passes through unchanged.
"""

import functools
import numbers
import re

_INCOMPATIBLE = ("incompatible function arguments", "incompatible constructor arguments")
# "    1. (self: X, run: int = 0) -> y" or, for constructors, "    1. pkg.Cls(a: int)".
_SIGNATURE = re.compile(r"^\s*\d+\.\s*[\w.]*\((.*)\)(?:\s*->.*)?$")
_NO_VALUE = object()


def _split_top_level(text, sep=","):
    """Splits at `sep` outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _parse_params(sig):
    """[(name, annotation, has_default)] of one signature's parameter list."""
    params = []
    for p in _split_top_level(sig):
        if p in ("*", "/") or p.startswith("*"):
            continue
        name, _, rest = p.partition(":")
        annotation, eq, _ = rest.partition("=") if rest else ("object", "", "")
        params.append((name.strip(), annotation.strip() or "object", bool(eq)))
    return params


def _strip_outer(ann, *prefixes):
    for prefix in prefixes:
        if ann.startswith(prefix + "[") and ann.endswith("]"):
            return ann[len(prefix) + 1:-1]
    return None


def _alternatives(ann):
    """The members of a union annotation ('A | B', Union[A, B], Optional[A])."""
    inner = _strip_outer(ann, "typing.Optional", "Optional")
    if inner is not None:
        return _alternatives(inner) + ["None"]
    inner = _strip_outer(ann, "typing.Union", "Union")
    if inner is not None:
        return [a for part in _split_top_level(inner) for a in _alternatives(part)]
    parts = _split_top_level(ann, "|")
    return parts if len(parts) > 1 else [ann]


def _kind(ann):
    """Normalises one annotation to (kind, element annotation or class name)."""
    base = ann.split("[", 1)[0]
    short = base.rsplit(".", 1)[-1]
    if ann in ("None", "NoneType"):
        return "none", None
    if short in ("int", "SupportsInt", "SupportsIndex"):
        return "int", None
    if short in ("float", "SupportsFloat"):
        return "float", None
    if short == "bool":
        return "bool", None
    if short == "str":
        return "str", None
    if short in ("List", "list", "Sequence", "Iterable", "tuple", "Tuple"):
        inner = ann[len(base) + 1:-1] if "[" in ann else "object"
        return "sequence", inner
    if short in ("dict", "Dict", "Mapping"):
        return "mapping", None
    if "ndarray" in ann or "ArrayLike" in ann or short in ("NDArray", "array", "Annotated"):
        return "array", None
    if short in ("Callable",):
        return "callable", None
    if short in ("object", "handle", "Any", "args", "kwargs") or base in ("typing.Any",):
        return "any", None
    if base.startswith("gpbandit."):
        return "class", short
    return "any", None


def _describe(ann):
    words = []
    for alt in _alternatives(ann):
        kind, arg = _kind(alt)
        text = {
            "none": "None",
            "int": "an integer",
            "float": "a number",
            "bool": "a bool",
            "str": "a string",
            "mapping": "a dict",
            "array": "an array of numbers",
            "callable": "a callable",
            "any": "any object",
        }.get(kind)
        if kind == "sequence":
            element = _describe(arg)
            plural = {"an integer": "integers", "a number": "numbers", "a string": "strings",
                      "a bool": "bools"}.get(element, element)
            text = f"a sequence of {plural}"
        elif kind == "class":
            text = f"a gpbandit.{arg}"
        if text not in words:
            words.append(text)
    # "an integer or a number" reads as "a number" (pybind11 3 writes int | SupportsIndex ...).
    if "a number" in words and "an integer" in words:
        words.remove("an integer")
    return " or ".join(words)


def _fits_one(value, ann, classes):
    kind, arg = _kind(ann)
    if kind == "any":
        return True
    if kind == "none":
        return value is None
    if kind == "int":
        return not isinstance(value, float) and (isinstance(value, numbers.Integral)
                                                 or hasattr(type(value), "__index__"))
    if kind == "float":
        return isinstance(value, numbers.Real) or hasattr(type(value), "__float__") or \
            hasattr(type(value), "__index__")
    if kind == "bool":
        return isinstance(value, numbers.Number) or type(value).__name__ == "bool_"
    if kind == "str":
        return isinstance(value, (str, bytes))
    if kind == "sequence":
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or \
                not hasattr(value, "__getitem__") and not hasattr(value, "__iter__"):
            return False
        try:
            return all(_fits(v, arg, classes) for v in value)
        except TypeError:
            return False
    if kind == "mapping":
        return hasattr(value, "keys")
    if kind == "array":
        import numpy
        try:
            return numpy.asarray(value).dtype.kind in "biuf"
        except (TypeError, ValueError):
            return False
    if kind == "callable":
        return callable(value)
    cls = classes.get(arg)
    return cls is None or isinstance(value, cls)


def _fits(value, ann, classes):
    return any(_fits_one(value, alt, classes) for alt in _alternatives(ann))


def _short_repr(value):
    text = repr(value).replace("\n", " ")
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= 60 else text[:57] + "..."


def _bind(params, args, kwargs, qualname):
    """{name: value} for one signature, or a one-line reason it cannot bind."""
    if len(args) > len(params):
        shown = [p for p in params if p[0] != "self"]
        given = len(args) - (len(params) - len(shown))
        return None, f"{qualname}() takes at most {len(shown)} arguments ({given} given)"
    bound = {params[i][0]: a for i, a in enumerate(args)}
    names = [p[0] for p in params]
    for key, value in kwargs.items():
        if key not in names:
            allowed = ", ".join(n for n in names if n != "self")
            return None, f"{qualname}(): unexpected keyword argument '{key}' (accepted: {allowed})"
        if key in bound:
            return None, f"{qualname}(): argument '{key}' given twice"
        bound[key] = value
    for name, _, has_default in params:
        if name not in bound and not has_default:
            return None, f"{qualname}(): missing required argument '{name}'"
    return bound, None


def _out_of_range(params, bound, qualname):
    """The first integer argument outside the 32-bit range where the signature wants an integer:
    the likely reason pybind11 refused it (most integer parameters are C++ int)."""
    for name, ann, _ in params:
        value = bound.get(name, _NO_VALUE)
        if value is _NO_VALUE or name == "self" or isinstance(value, bool):
            continue
        if any(_kind(a)[0] == "int" for a in _alternatives(ann)) and \
                isinstance(value, numbers.Integral) and not -2**31 <= int(value) < 2**31:
            return (f"{qualname}(): argument '{name}': {int(value)} is out of range for its C++ "
                    f"integer type")
    return None


def _explain(qualname, message, args, kwargs, classes, method):
    """One line saying which argument of `qualname` does not fit its signature. For a `method`,
    args[0] is the instance; constructor signatures do not list it (and it is not initialised
    yet, so it must never be printed)."""
    signatures = [m.group(1) for m in map(_SIGNATURE.match, message.splitlines()) if m]
    reasons = []
    for sig in signatures:
        params = _parse_params(sig)
        own = args[1:] if method and (not params or params[0][0] != "self") else args
        bound, reason = _bind(params, own, kwargs, qualname)
        if reason is None:
            for name, ann, _ in params:
                value = bound.get(name, _NO_VALUE)
                if value is not _NO_VALUE and name != "self" and not _fits(value, ann, classes):
                    reason = (f"{qualname}(): argument '{name}': expected {_describe(ann)}, "
                              f"got {type(value).__name__} {_short_repr(value)}")
                    break
        if reason is None:  # every argument looks right: an integer out of range for C++?
            reason = _out_of_range(params, bound, qualname)
        if reason is None:
            values = ", ".join(f"{n}={_short_repr(v)}" for n, v in bound.items() if n != "self")
            reason = (f"{qualname}(): arguments ({values}) do not convert to the C++ types "
                      f"({sig}); an integer may be out of range")
        reasons.append(reason)
    if not reasons:
        return f"{qualname}(): the arguments do not match its signature"
    bindable = [r for r in reasons if "argument '" in r or "do not convert" in r]
    return (bindable or reasons)[0]


def _wrap(fn, qualname, classes, method=False):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            message = str(e)
            if not any(m in message for m in _INCOMPATIBLE):
                raise
            explained = _explain(qualname, message, args, kwargs, classes, method)
        raise TypeError(explained)

    call.__qualname__ = qualname
    return call


def _is_extension_callable(obj):
    return type(obj).__name__ == "builtin_function_or_method"


def install(module):
    """Wraps the functions and the methods of every class of the extension `module` in place."""
    classes = {name: obj for name, obj in vars(module).items() if isinstance(obj, type)}
    for name, obj in list(vars(module).items()):
        if _is_extension_callable(obj) and not name.startswith("__"):
            setattr(module, name, _wrap(obj, name, classes))
    for cls_name, cls in classes.items():
        if issubclass(cls, BaseException):
            continue
        for name, attr in list(vars(cls).items()):
            if name.startswith("__") and name not in ("__init__", "__call__", "__setstate__"):
                continue
            qualname = cls_name if name == "__init__" else f"{cls_name}.{name}"
            if isinstance(attr, staticmethod) and _is_extension_callable(attr.__func__):
                setattr(cls, name, staticmethod(_wrap(attr.__func__, qualname, classes)))
            elif type(attr).__name__ == "instancemethod":
                setattr(cls, name, _wrap(attr.__func__, qualname, classes, method=True))
