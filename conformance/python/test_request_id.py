"""python3 -m unittest (in conformance/python): request_id.py over every
case of rpcidtest/vectors.json at the repository root.

Each vector's raw bytes are decoded as an SDK decodes them: strict UTF-8,
then the standard json module (with parse_constant refusing the NaN and
Infinity literals it would otherwise take, which are not JSON), twice:

- as json.loads does by default (floats): vectors whose numbers a float
  cannot hold exactly (0.1, 1e400, 1e-400) are counted and listed as
  "not representable: use a lossless decoder", never passed;
- with json.loads(text, parse_float=Decimal, parse_int=int), which is
  exact: the runner says which vectors need it. Decimal refuses a value
  whose exponent is beyond +-999999999999999999, so the few vectors that
  spell an exponent of 18 or more digits (to test the rule's exponent
  bound) may still be listed as not representable; no other vector may be.
  (Among them is 0e99999999999999999999, which a float reads exactly as 0.)

Vectors whose id is null are listed: request_id.py treats null as no
request id by design (a request id is never null).
"""

from decimal import Decimal, InvalidOperation
import json
import math
import os
import re
import unittest

from request_id import request_id_key, same_request_id

_VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rpcidtest", "vectors.json")


def _raw(text, hex_text):
    return text.encode("utf-8") if text is not None else bytes.fromhex(hex_text)


class _Unrepresentable:
    """A raw id the decoder cannot hold exactly (Decimal's exponent limit)."""


class _Invalid:
    """A raw id the standard decoders refuse."""

    def __init__(self, why):
        self.why = why


def _refuse_constant(name):
    # json.loads takes NaN, Infinity and -Infinity by default; RFC 8259 has
    # no such values, so a strict SDK refuses them (parse_constant exists
    # for this).
    raise ValueError("not JSON: " + name)


def _decode(raw, exact):
    try:
        text = raw.decode("utf-8")  # strict: invalid UTF-8 raises
    except UnicodeDecodeError:
        return _Invalid("invalid UTF-8")
    try:
        if exact:
            return json.loads(text, parse_float=Decimal, parse_int=int, parse_constant=_refuse_constant)
        return json.loads(text, parse_constant=_refuse_constant)
    except InvalidOperation:  # a Decimal exponent beyond +-999999999999999999
        return _Unrepresentable()
    except ValueError as e:  # JSONDecodeError
        return _Invalid(str(e))


def _representable(raw, value):
    """Whether a decoded float is exactly the number its text says."""
    if isinstance(value, _Unrepresentable):
        return False
    if not isinstance(value, float):
        return True
    text = raw.decode("ascii").strip(" \t\n\r")
    mantissa = re.split("[eE]", text)[0]
    if value == 0 and not re.search("[1-9]", mantissa):
        return True  # a zero, whatever its exponent
    try:
        exact = Decimal(text)
    except InvalidOperation:  # an exponent beyond Decimal's, so not 0 and not a finite float
        return False
    return math.isfinite(value) and Decimal(value) == exact


def _key_from_vector(key):
    """The key request_id.py must give, from a vector's key spelling."""
    if key.startswith('"'):
        return ("string", json.loads(key))
    if re.fullmatch(r"-?[0-9]+", key) and -(2**63) <= int(key) < 2**63:
        return ("int", int(key))
    m = re.fullmatch(r"(-?)([1-9][0-9]*)(?:e(-?[0-9]+))?", key)
    return ("number", 1 if m.group(1) else 0, m.group(2), int(m.group(3) or 0))


def _run(exact):
    with open(_VECTORS, encoding="utf-8") as f:
        vectors = json.load(f)
    checked, unrepresentable, null_by_design, failures = 0, [], [], []

    def key_of(raw):
        v = _decode(raw, exact)
        return None if isinstance(v, _Invalid) else request_id_key(v)

    for v in vectors["decode"]:
        name = "decode/" + v["name"]
        raw = _raw(v.get("raw"), v.get("raw_hex"))
        value = _decode(raw, exact)
        if not _representable(raw, value):
            unrepresentable.append(name)
            continue
        if value is None:
            null_by_design.append(name)
            continue
        checked += 1
        key = None if isinstance(value, _Invalid) else request_id_key(value)
        if not v["valid"]:
            if key is not None:
                failures.append("%s: invalid (%s) but has key %r" % (name, v["error"], key))
            continue
        if key is None:
            failures.append("%s: valid %s but has no key" % (name, v["kind"]))
            continue
        if key != _key_from_vector(v["key"]):
            failures.append("%s: key %r, want %r (vector key %s)" % (name, key, _key_from_vector(v["key"]), v["key"]))
        for label in ("canonical", "key"):
            other = v[label].encode("utf-8")
            if not _representable(other, _decode(other, exact)):
                continue
            if key_of(other) != key:
                failures.append("%s: key %r but its %s spelling %s has key %r" % (name, key, label, v[label], key_of(other)))

    for p in vectors["pairs"]:
        name = "pair/" + p["name"]
        ra, rb = _raw(p.get("a"), p.get("a_hex")), _raw(p.get("b"), p.get("b_hex"))
        a, b = _decode(ra, exact), _decode(rb, exact)
        if not _representable(ra, a) or not _representable(rb, b):
            unrepresentable.append(name)
            continue
        if p["equal"] and (a is None or b is None):
            null_by_design.append(name)
            continue
        checked += 1
        valid = not isinstance(a, _Invalid) and not isinstance(b, _Invalid)
        got = valid and same_request_id(a, b)
        back = valid and same_request_id(b, a)
        if got != p["equal"] or back != p["equal"]:
            failures.append("%s: same_request_id = %s (reversed %s), want %s: %s" % (name, got, back, p["equal"], p["reason"]))

    total = len(vectors["decode"]) + len(vectors["pairs"])
    return checked, unrepresentable, null_by_design, failures, total


class VectorsTest(unittest.TestCase):
    def report(self, label, exact):
        checked, unrep, nulls, failures, total = _run(exact)
        print("\nrequest_id.py with %s: %d vectors checked, %d failed" % (label, checked, len(failures)))
        print("not representable: use a lossless decoder (%d): %s" % (len(unrep), ", ".join(unrep) or "none"))
        print("null, which request_id.py treats as no request id by design (%d): %s" % (len(nulls), ", ".join(nulls)))
        self.assertEqual(failures, [])
        self.assertEqual(checked + len(unrep) + len(nulls), total, "every vector is checked or listed")
        return unrep

    def test_json_loads(self):
        unrep = self.report("json.loads (floats)", exact=False)
        # A float turns 1e400 into inf; the runner must notice.
        self.assertIn("pair/num-1e400-10e399", unrep)

    def test_json_loads_decimal(self):
        unrep = self.report("json.loads(parse_float=Decimal, parse_int=int)", exact=True)
        _, float_unrep, _, _, _ = _run(False)
        need = [n for n in float_unrep if n not in unrep]
        print("vectors that need parse_float=Decimal (%d): %s" % (len(need), ", ".join(need)))
        worse = [n for n in unrep if n not in float_unrep]
        print("vectors Decimal cannot hold though float can (a zero with a 20-digit exponent) (%d): %s" % (len(worse), ", ".join(worse) or "none"))
        with open(_VECTORS, encoding="utf-8") as f:
            vectors = json.load(f)
        texts = {"decode/" + v["name"]: [v.get("raw") or ""] for v in vectors["decode"]}
        texts.update({"pair/" + p["name"]: [p.get("a") or "", p.get("b") or ""] for p in vectors["pairs"]})
        for name in unrep:
            self.assertTrue(any(re.search(r"[eE][+-]?[0-9]{18,}", t) for t in texts[name]),
                            "%s is not representable as Decimal, yet spells no exponent of 18 or more digits" % name)


class CasesTest(unittest.TestCase):
    """request_id.py on the (sent, received) checks the SDK matrix runs
    (../testdata/cases.json), as an SDK would use it: a request pending
    under the sent id's key, the response looked up under the received
    id's key."""

    def run_cases(self, exact):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "cases.json")
        with open(path, encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        tally = {"checks": 0, "unsendable": 0, "agreed": 0, "wrong": 0, "missed": 0, "common_wrong": 0}
        lossy = []
        for c in cases:
            rs, rr = bytes.fromhex(c["sent_hex"]), bytes.fromhex(c["received_hex"])
            s, r = _decode(rs, exact), _decode(rr, exact)
            sent = None if isinstance(s, (_Invalid, _Unrepresentable)) else request_id_key(s)
            if sent is None:
                tally["unsendable"] += 1
                continue
            tally["checks"] += 1
            got = not isinstance(r, (_Invalid, _Unrepresentable)) and request_id_key(r) == sent
            if got == c["want"]:
                tally["agreed"] += 1
                continue
            tally["wrong" if got else "missed"] += 1
            if got and re.fullmatch(rb"0|[1-9][0-9]*", rs) and int(rs) < 2**53:
                tally["common_wrong"] += 1
            # Every disagreement involves an id the decoder cannot hold exactly.
            self.assertFalse(_representable(rs, s) and _representable(rr, r),
                             "case %d %s: disagrees, yet both ids decode exactly" % (c["i"], c["vector"]))
            lossy.append("%s: sent %s received %s" % (c["vector"], rs.decode("latin-1"), rr.decode("latin-1")))
        print("\nrequest_id.py with %s on %d conformance checks: %s" % ("Decimal" if exact else "floats", len(cases), tally))
        print("disagreements (%d): %s" % (len(lossy), "; ".join(lossy) or "none"))
        return tally

    def test_floats(self):
        tally = self.run_cases(exact=False)
        # A received 1e-400 reads as 0.0 and settles request 0; the runner must notice.
        self.assertGreater(tally["common_wrong"], 0)

    def test_decimal(self):
        tally = self.run_cases(exact=True)
        self.assertEqual(tally["wrong"], 0)


class ValuesTest(unittest.TestCase):
    def test_not_ids(self):
        for x in (None, True, False, float("nan"), float("inf"), -float("inf"), Decimal("NaN"), Decimal("sNaN"),
                  Decimal("Infinity"), [], {}, [1], b"1", object(), "\ud800", "a\udc00b", Decimal("0.01e-999999999999999998")):
            self.assertIsNone(request_id_key(x), repr(x))
            self.assertFalse(same_request_id(x, x), repr(x))

    def test_long_values(self):
        # Beyond int64 a digit string is a string id, however long (int()
        # would raise past 4300 digits), and a big int is a number.
        self.assertEqual(request_id_key("1" * 5000), ("string", "1" * 5000))
        self.assertEqual(request_id_key(10**5000), ("number", 0, "1", 5000))
        self.assertFalse(same_request_id("1" * 5000, int("1" * 4000)))

    def test_bool_is_not_int(self):
        self.assertFalse(same_request_id(True, 1))
        self.assertFalse(same_request_id(False, 0))
        self.assertFalse(same_request_id(True, "1"))

    def test_subclasses_by_value(self):
        # An int, str or Decimal subclass is the id its value is: its own
        # __eq__, __hash__, __len__ or as_tuple never decide the key.
        class AlwaysEqualInt(int):
            def __eq__(self, other):
                return True

            def __hash__(self):
                return hash(1)

        class LyingStr(str):
            def __eq__(self, other):
                return True

            def __hash__(self):
                return 0

            def __len__(self):
                return 1

        class LyingDecimal(Decimal):
            def as_tuple(self):
                return (0, (5,), 0)

            def is_finite(self):
                return True

        self.assertEqual(request_id_key(AlwaysEqualInt(7)), ("int", 7))
        self.assertIs(type(request_id_key(AlwaysEqualInt(7))[1]), int)
        self.assertFalse(same_request_id(AlwaysEqualInt(7), 1))
        self.assertFalse(same_request_id(AlwaysEqualInt(7), "1"))
        self.assertTrue(same_request_id(AlwaysEqualInt(7), "7"))
        self.assertFalse(same_request_id(LyingStr("x"), "y"))
        self.assertTrue(same_request_id(LyingStr("x"), "x"))
        self.assertIs(type(request_id_key(LyingStr("x"))[1]), str)
        # A 5000-digit string is a string id, whatever __len__ says, and never
        # reaches int() (which raises past 4300 digits).
        self.assertEqual(request_id_key(LyingStr("1" * 5000)), ("string", "1" * 5000))
        self.assertFalse(same_request_id(LyingDecimal("7"), 5))
        self.assertTrue(same_request_id(LyingDecimal("7"), 7))
        self.assertIsNone(request_id_key(LyingDecimal("NaN")))

    def test_equal(self):
        for a, b in [(1, "1"), (0, "0"), (0, 0.0), (0, -0.0), (-12, "-12"), (1, 1.0), (1, Decimal("1.000")), (1, Decimal("1e0")),
                     (2**63 - 1, "9223372036854775807"), (-(2**63), "-9223372036854775808"),
                     (1.5, Decimal("15e-1")), (2**63, Decimal("9223372036854775808")), (2**64, 2.0**64),
                     ("a", "a"), ("\U0001f600", json.loads('"\\ud83d\\ude00"')),
                     (Decimal("1e999999999999999999"), Decimal("10e999999999999999998"))]:
            self.assertTrue(same_request_id(a, b), (a, b))
            self.assertTrue(same_request_id(b, a), (b, a))
            self.assertEqual(hash(request_id_key(a)), hash(request_id_key(b)))

    def test_not_equal(self):
        for a, b in [(1, "01"), (1, "+1"), (1, " 1"), (1, "1 "), (10, "1_0"), (1, "\uff11"), (1, "\u0661"),
                     (0, ""), (0, "-0"), (1, "1.0"), (1, "1e0"), (1, "0x1"), (1.5, "1.5"), (1.5, 1),
                     (2**63, "9223372036854775808"), (2**53 + 1, 2**53), (0.1, Decimal("0.1")),
                     ("a", "A"), ("\u00e9", "e\u0301"), (Decimal("1e999999999999999999"), Decimal("1e999999999999999998"))]:
            self.assertFalse(same_request_id(a, b), (a, b))
            self.assertFalse(same_request_id(b, a), (b, a))


if __name__ == "__main__":
    unittest.main()
