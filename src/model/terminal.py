"""Text for a terminal: what the input says (object names, values, messages quoting them) may hold
characters a terminal acts on instead of showing: ESC starts escape sequences (colours, cursor moves,
window titles, hyperlinks), BEL rings, NUL and other control characters vanish or act, CR overwrites
the line, a newline forges one, and bidirectional controls (U+202E) reorder what follows.

kubectl escapes ESC as `^[` and CR as `\\r` (cli-runtime's printers.EscapeTerminal); kubefit does the
same and shows every other such character too, as Go's %q would (`\\n`, `\\t`, `\\x07`, `\\u202e`), in
tables, text answers, problem lines and logs. JSON and YAML keep every value exact: they carry their
own escapes (`output`).
"""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls; the bidirectional embeddings, overrides, isolates and marks; the
# Unicode line and paragraph separators.
_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
UNSAFE = re.compile(f"[\x00-\x1f{_OTHERS}]")
_UNSAFE_IN_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHERS}]")  # tab and newline kept

_NAMED = {"\x1b": "^[", "\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """`text` as one line a terminal shows as it is."""
    return UNSAFE.sub(_shown, text) if UNSAFE.search(text) else text


def escape_lines(text: str) -> str:
    """`text` of several lines (tabs kept too) a terminal shows as it is."""
    return _UNSAFE_IN_LINES.sub(_shown, text) if _UNSAFE_IN_LINES.search(text) else text


def lines_text(lines: list[str]) -> str:
    """Lines as one text, each shown on its own line whatever it quotes."""
    return "".join(escape(line) + "\n" for line in lines)
