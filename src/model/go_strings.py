"""Go's string rules where kubefit must print or trim text exactly as Go does.

Error messages from Go code quote values with `%q` (strconv.Quote), and Go trims
with unicode.IsSpace; neither matches Python's `repr` or `str.isspace`, and a
user compares kubefit's messages with the API server's.
"""

from __future__ import annotations

import unicodedata

# Go's unicode.IsSpace: Latin-1 spaces plus the Unicode White_Space property.
# Zero-width characters (U+200B, U+FEFF, U+180E) are not among them.
GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

# The control characters strconv.Quote writes as C-style escapes.
GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_is_print(ch: str) -> bool:
    """Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space."""
    return ch == " " or unicodedata.category(ch)[0] in "LMNPS"


def go_quote(text: str, *, lone_surrogate: str | None = None) -> str:
    """Go's strconv.Quote (`%q`): a double-quoted string with Go escapes.

    A lone surrogate is invalid UTF-8 to Go, which quotes its bytes one by one;
    `lone_surrogate`, when given, is written for it instead.
    """
    out = ['"']
    for ch in text:
        cp = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif 0xD800 <= cp <= 0xDFFF:
            if lone_surrogate is not None:
                out.append(lone_surrogate)
            else:
                out.append("".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass")))
        elif go_is_print(ch):
            out.append(ch)
        elif ch in GO_ESCAPES:
            out.append(GO_ESCAPES[ch])
        elif cp < 0x20 or cp == 0x7F:
            out.append(f"\\x{cp:02x}")
        elif cp < 0x10000:
            out.append(f"\\u{cp:04x}")
        else:
            out.append(f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)
