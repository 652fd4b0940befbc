"""JSON-RPC request id equality by the rpcid rule, for Python SDKs.

One dependency-free file (standard library only): copy it into an SDK.
It is meant to replace normalizers such as python-sdk's
``BaseSession._normalize_request_id``, which calls ``int()`` on string ids
and so takes ``" 1"``, ``"+1"``, ``"01"``, ``"1_0"`` (as 10) and non-ASCII
digits for integers. Key both the table of pending requests and the lookup
with ``request_id_key``: its keys are tuples, not ids.

The rule (https://github.com/rpcid/rpcid, docs/request-id-equality.md):
numbers are equal by exact value whatever their spelling (1 = 1.0 = 1e0,
0 = -0); a string is equal to an integer exactly when it is the integer's
canonical decimal spelling, in ASCII, within int64 ("7" = 7; "07", "+7",
" 7", "7.0", "0x7", "", "７" and "1_0" equal no number); other strings are
equal when they are identical; a string never equals a fractional number.

The functions take ids as ``json.loads`` or pydantic return them: ``int``,
``str``, ``float`` and ``decimal.Decimal``. ``bool`` is not an id here,
although it is an ``int`` subclass. ``json.loads`` reads numbers with a
fraction or exponent as ``float``, which rounds: ``1e400`` reads as ``inf``,
and a response id ``1e-400`` reads as ``0.0`` and ``1.0000000000000001`` as
``1.0``, so that they would settle pending requests 0 and 1, which the rule
says they do not answer. ``json.loads(text, parse_float=decimal.Decimal)``
keeps exact every number that a Decimal can hold (integers are exact either
way). It raises ``decimal.InvalidOperation`` for a number of magnitude
10**(10**18) or more, some of which are ids under the rule
(``12e999999999999999999``), and for some exponents of 20 or more digits,
even on a zero (``0e99999999999999999999`` is the id 0): such a message is
refused, which settles no wrong request but misses those ids.

In a response loop::

    pending = {}                           # request_id_key(id) -> future
    pending[request_id_key(request_id)] = future
    key = request_id_key(response_id)      # None: matches nothing
    future = pending.pop(key, None) if key is not None else None

Neither function raises, for any argument.
"""

from decimal import Decimal, InvalidOperation
import re

__all__ = ["request_id_key", "same_request_id"]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
# [0-9] is ASCII only in Python's re; \d would take other scripts' digits.
_CANONICAL_INT = re.compile(r"(?:0|-?[1-9][0-9]*)")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# rpcid refuses a number d * 10**e (d not divisible by 10) with
# |e| >= 10**18 rather than compute with it.
_MAX_EXPONENT = 10**18


def request_id_key(id):
    """Return the key of a request id, or None when it cannot be one.

    Keys are hashable and equal for two ids exactly when the ids are the
    same id under the rule, for use as dict keys:

    - an integer within int64 (an int, an integral float or Decimal, or a
      str in canonical decimal) gives ``("int", n)``, n an ``int``;
    - any other number gives ``("number", sign, digits, exponent)``, its
      exact value as sign * digits * 10**exponent in lowest terms;
    - any other str gives ``("string", s)``, s a ``str``.

    Subclasses of int (but not bool), float, str and Decimal are taken by
    their value.

    None is returned for None (a request id is never null, and a null
    response id answers no request), bool, NaN and infinities, numbers whose
    exponent in lowest terms is 10**18 or more in magnitude, str holding a
    lone surrogate (not Unicode text), and every other type.
    """
    # A subclass of int, str or Decimal is the id its value is: take the
    # value as the exact built-in type first, so that no method the subclass
    # overrides (__eq__, __hash__, __len__, as_tuple) decides the key.
    if isinstance(id, bool):
        return None
    if isinstance(id, int):
        id = int.__int__(id)
        if _INT64_MIN <= id <= _INT64_MAX:
            return ("int", id)
        return _number_key(Decimal(id))
    if isinstance(id, float):
        return _number_key(Decimal(id))  # Decimal(float) is exact
    if isinstance(id, Decimal):
        return _number_key(Decimal(id))  # a plain Decimal of the same value
    if isinstance(id, str):
        id = str.__str__(id)
        if _LONE_SURROGATE.search(id):
            return None
        # An int64 has at most 20 characters ("-9223372036854775808"); the
        # length check also keeps int() from its 4300-digit limit.
        if len(id) <= 20 and _CANONICAL_INT.fullmatch(id):
            n = int(id)
            if _INT64_MIN <= n <= _INT64_MAX:
                return ("int", n)
        return ("string", id)
    return None


def same_request_id(a, b):
    """Report whether a and b are the same request id under the rule.

    True exactly when both have a key (see request_id_key) and the keys are
    equal; a value that cannot be an id equals nothing, not even itself.
    """
    ka = request_id_key(a)
    return ka is not None and ka == request_id_key(b)


def _number_key(d):
    """The key of a finite Decimal, without ever computing 10**exponent."""
    if not d.is_finite():
        return None
    try:
        sign, digits, exponent = d.as_tuple()
    except (InvalidOperation, ValueError):
        return None
    text = "".join(map(str, digits)).lstrip("0")
    if text == "":
        return ("int", 0)  # 0, -0, 0.0, 0e999 are all the integer 0
    stripped = text.rstrip("0")
    exponent += len(text) - len(stripped)
    if abs(exponent) >= _MAX_EXPONENT:
        return None
    if exponent >= 0 and len(stripped) + exponent <= 19:
        n = int(stripped) * 10**exponent
        if sign:
            n = -n
        if _INT64_MIN <= n <= _INT64_MAX:
            return ("int", n)
    return ("number", sign, stripped, exponent)
