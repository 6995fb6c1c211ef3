"""The iteration order of a CPython ``set`` of strings under ``PYTHONHASHSEED=0``.

AgentGym's server builds the crafting-commands list as ``list(a_set_of_strings)``; that order
follows the strings' hashes, so it is fixed only when the hash seed is (we reproduce its server
run with ``PYTHONHASHSEED=0``). This module recomputes it in any interpreter: SipHash-1-3
(CPython 3.11+) or SipHash-2-4 (CPython 3.4-3.10) with the all-zero key that seed 0 gives
(64-bit builds), and CPython's set table
(``Objects/setobject.c``: linear probing over 9 neighbours, then perturbed jumps, the table
growing to 4x the used slots when 60% full).
"""

from __future__ import annotations

from collections.abc import Iterable

_MASK64 = (1 << 64) - 1
_LINEAR_PROBES = 9
_PERTURB_SHIFT = 5
_MIN_SIZE = 8


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _MASK64


def _round(v0: int, v1: int, v2: int, v3: int) -> tuple[int, int, int, int]:
    v0 = (v0 + v1) & _MASK64
    v2 = (v2 + v3) & _MASK64
    v1 = _rotl(v1, 13) ^ v0
    v3 = _rotl(v3, 16) ^ v2
    v0 = _rotl(v0, 32)
    v2 = (v2 + v1) & _MASK64
    v0 = (v0 + v3) & _MASK64
    v1 = _rotl(v1, 17) ^ v2
    v3 = _rotl(v3, 21) ^ v0
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash(data: bytes, k0: int = 0, k1: int = 0, c_rounds: int = 1, d_rounds: int = 3) -> int:
    """SipHash-c-d of ``data`` as an unsigned 64-bit integer: SipHash-1-3 is CPython 3.11+'s
    string hash, SipHash-2-4 that of CPython 3.4-3.10."""
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573
    n = len(data)
    end = n - n % 8
    for i in range(0, end, 8):
        m = int.from_bytes(data[i : i + 8], "little")
        v3 ^= m
        for _ in range(c_rounds):
            v0, v1, v2, v3 = _round(v0, v1, v2, v3)
        v0 ^= m
    b = ((n & 0xFF) << 56) | int.from_bytes(data[end:], "little")
    v3 ^= b
    for _ in range(c_rounds):
        v0, v1, v2, v3 = _round(v0, v1, v2, v3)
    v0 ^= b
    v2 ^= 0xFF
    for _ in range(d_rounds):
        v0, v1, v2, v3 = _round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


#: String hash of CPython by version: SipHash-1-3 from 3.11, SipHash-2-4 in 3.4-3.10.
ALGORITHMS = {"siphash13": (1, 3), "siphash24": (2, 4)}


def str_hash(text: str, algorithm: str = "siphash13") -> int:
    """``hash(text)`` in a 64-bit CPython started with ``PYTHONHASHSEED=0`` (``algorithm``
    ``siphash13``: 3.11+, ``siphash24``: 3.4-3.10)."""
    if not text:
        return 0
    if text.isascii():
        data = text.encode("ascii")
    else:  # CPython hashes its compact representation: 1, 2 or 4 bytes per character
        width = max(1 if ord(c) < 256 else 2 if ord(c) < 65536 else 4 for c in text)
        data = b"".join(ord(c).to_bytes(width, "little") for c in text)
    h = siphash(data, 0, 0, *ALGORITHMS[algorithm])
    if h >= 1 << 63:
        h -= 1 << 64
    return -2 if h == -1 else h


class HashOrderedSet:
    """A set of strings that iterates in the order CPython's ``set`` would under seed 0."""

    def __init__(self, items: Iterable[str] = (), algorithm: str = "siphash13") -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(
                f"unknown string hash {algorithm!r}: use one of {', '.join(ALGORITHMS)}"
            )
        self.algorithm = algorithm
        self._table: list[tuple[int, str] | None] = [None] * _MIN_SIZE
        self._used = 0
        for item in items:
            self.add(item)

    def __len__(self) -> int:
        return self._used

    def __iter__(self):
        return (entry[1] for entry in self._table if entry is not None)

    def __contains__(self, item: str) -> bool:
        return any(entry is not None and entry[1] == item for entry in self._table)

    def add(self, item: str) -> None:
        h = str_hash(item, self.algorithm)
        mask = len(self._table) - 1
        perturb = h & _MASK64
        i = perturb & mask
        while True:
            probes = _LINEAR_PROBES if i + _LINEAR_PROBES <= mask else 0
            j = i
            for _ in range(probes + 1):
                entry = self._table[j]
                if entry is None:
                    self._table[j] = (h, item)
                    self._used += 1
                    # no deletions here, so "fill" (used + dummies) equals "used"
                    if self._used * 5 >= mask * 3:
                        self._resize(self._used * 4 if self._used <= 50000 else self._used * 2)
                    return
                if entry[0] == h and entry[1] == item:
                    return
                j += 1
            perturb >>= _PERTURB_SHIFT
            i = (i * 5 + 1 + perturb) & mask

    def _resize(self, minused: int) -> None:
        size = _MIN_SIZE
        while size <= minused:
            size <<= 1
        old = [e for e in self._table if e is not None]
        self._table = [None] * size
        mask = size - 1
        for h, item in old:
            perturb = h & _MASK64
            i = perturb & mask
            while True:
                if self._table[i] is None:
                    break
                found = False
                if i + _LINEAR_PROBES <= mask:
                    for k in range(1, _LINEAR_PROBES + 1):
                        if self._table[i + k] is None:
                            i, found = i + k, True
                            break
                if found:
                    break
                perturb >>= _PERTURB_SHIFT
                i = (i * 5 + 1 + perturb) & mask
            self._table[i] = (h, item)
