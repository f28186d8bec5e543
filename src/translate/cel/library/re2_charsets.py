"""Code point sets for the RE2 translation (see `re2`): Go's classes, written out for Python.

RE2's case folding, Perl and POSIX classes and Unicode categories are expanded
into explicit ranges of code points here, so that Python's own folding and
class rules never apply to a translated pattern.
"""

from __future__ import annotations

import bisect
import functools
import unicodedata

MAX_RUNE = 0x10FFFF

Ranges = list[tuple[int, int]]


def normalize(ranges: Ranges) -> Ranges:
    """The same set as sorted, non-overlapping, non-adjacent ranges."""
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def negate(ranges: Ranges) -> Ranges:
    """Every code point not in the set."""
    out: Ranges = []
    nxt = 0
    for lo, hi in normalize(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_RUNE:
        out.append((nxt, MAX_RUNE))
    return out


# Blocks that hold every cased letter Python knows; scanning only these keeps the
# one-time fold table build fast.
_CASED_BLOCKS = (
    (0x0000, 0x2FFF),
    (0xA600, 0xABFF),
    (0xFB00, 0xFF5F),
    (0x10400, 0x10FFF),
    (0x118A0, 0x118FF),
    (0x16E40, 0x16E9F),
    (0x1E900, 0x1E95F),
)


@functools.cache
def _fold_orbits() -> tuple[dict[int, tuple[int, ...]], list[int]]:
    """Sets of code points that match each other case-insensitively (Go's SimpleFold orbits).

    Lower-casing and case folding link a letter to its partners; upper-casing is left
    out because it would wrongly join dotless i to I.
    """
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for lo, hi in _CASED_BLOCKS:
        for cp in range(lo, hi + 1):
            ch = chr(cp)
            for mapped in (ch.lower(), ch.casefold()):
                if len(mapped) == 1 and mapped != ch:
                    a, b = find(cp), find(ord(mapped))
                    if a != b:
                        parent[a] = b
    groups: dict[int, list[int]] = {}
    for cp in list(parent):
        groups.setdefault(find(cp), []).append(cp)
    orbits: dict[int, tuple[int, ...]] = {}
    for members in groups.values():
        if len(members) > 1:
            orbit = tuple(sorted(members))
            for cp in orbit:
                orbits[cp] = orbit
    return orbits, sorted(orbits)


def fold(ranges: Ranges) -> Ranges:
    """Close a set under case folding."""
    orbits, keys = _fold_orbits()
    extra: Ranges = []
    for lo, hi in ranges:
        for idx in range(bisect.bisect_left(keys, lo), bisect.bisect_right(keys, hi)):
            extra.extend((cp, cp) for cp in orbits[keys[idx]])
    return normalize(ranges + extra)


_GO_CATEGORIES = {
    "C": ("Cc", "Cf", "Co", "Cs"),
    "L": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "M": ("Mn", "Mc", "Me"),
    "N": ("Nd", "Nl", "No"),
    "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "S": ("Sm", "Sc", "Sk", "So"),
    "Z": ("Zs", "Zl", "Zp"),
}
# Go accepts these two-letter category names (`\p{Lu}`); one-letter ones are the major groups.
GO_TWO_LETTER = frozenset(m for minors in _GO_CATEGORIES.values() for m in minors)


@functools.cache
def category_table() -> dict[str, Ranges]:
    """Unicode general categories in Go's naming (Go has no `Cn`)."""
    table: dict[str, Ranges] = {}
    start, current = 0, unicodedata.category("\0")
    for cp in range(1, MAX_RUNE + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_RUNE else ""
        if cat != current:
            table.setdefault(current, []).append((start, cp - 1))
            start, current = cp, cat
    table.pop("Cn", None)
    for major, minors in _GO_CATEGORIES.items():
        table[major] = normalize([r for m in minors for r in table.get(m, [])])
    return table


# Unicode scripts Go's regexp knows; Python has no script data, so these are refused
# with a message that says so rather than reported as invalid.
_SCRIPT_NAMES = """
Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali
Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian
Chakma Cham Cherokee Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret
Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian
Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo
Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi Inscriptional_Parthian
Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki
Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam
Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive
Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari
New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic
Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya
Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic
Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo
Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut
Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi
Yi Zanabazar_Square
"""
SCRIPTS = frozenset(_SCRIPT_NAMES.split())


def _r(*chars: str) -> Ranges:
    """Ranges from "a-z"-style strings or single characters."""
    out: Ranges = []
    for c in chars:
        out.append((ord(c[0]), ord(c[-1])))
    return out


PERL_CLASSES: dict[str, tuple[bool, Ranges]] = {
    "d": (False, _r("0-9")),
    "s": (False, _r("\t", "\n", "\f", "\r", " ")),
    "w": (False, _r("0-9", "A-Z", "_", "a-z")),
}

POSIX_CLASSES: dict[str, Ranges] = {
    "alnum": _r("0-9", "A-Z", "a-z"),
    "alpha": _r("A-Z", "a-z"),
    "ascii": [(0, 0x7F)],
    "blank": _r("\t", " "),
    "cntrl": [(0, 0x1F), (0x7F, 0x7F)],
    "digit": _r("0-9"),
    "graph": _r("!-~"),
    "lower": _r("a-z"),
    "print": _r(" -~"),
    "punct": _r("!-/", ":-@", "[-`", "{-~"),
    "space": _r("\t", "\n", "\v", "\f", "\r", " "),
    "upper": _r("A-Z"),
    "word": _r("0-9", "A-Z", "_", "a-z"),
    "xdigit": _r("0-9", "A-F", "a-f"),
}


def _py_char(cp: int) -> str:
    ch = chr(cp)
    if ch.isascii() and ch.isalnum():
        return ch
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def py_class(ranges: Ranges) -> str:
    """A Python pattern atom that matches exactly the code points of the set."""
    ranges = normalize(ranges)
    if not ranges:
        return "(?!)"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _py_char(ranges[0][0])
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(_py_char(lo))
        else:
            parts.append(f"{_py_char(lo)}-{_py_char(hi)}")
    return "[" + "".join(parts) + "]"
