"""Go's string rules kubefit reproduces: `%q` quoting and unicode.IsSpace."""

from __future__ import annotations

import pytest

from kubefit.model.go_strings import GO_SPACE, go_is_print, go_quote


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("plain", '"plain"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("\x00\x7f\n", '"\\x00\\x7f\\n"'),
        ("é\u200b😀", '"é\\u200b😀"'),
        ("\U000e0001", '"\\U000e0001"'),
    ],
)
def test_go_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


def test_lone_surrogates_quote_as_their_bytes_unless_told_otherwise() -> None:
    assert go_quote("a\ud800") == '"a\\xed\\xa0\\x80"'
    assert go_quote("a\ud800", lone_surrogate="\\ufffd") == '"a\\ufffd"'


def test_go_space_and_print() -> None:
    assert " \u3000x\u2028".strip(GO_SPACE) == "x"
    # Zero-width characters are not spaces to Go.
    assert "\u200bx".strip(GO_SPACE) == "\u200bx"
    assert go_is_print(" ") and go_is_print("é") and not go_is_print("\u00a0") and not go_is_print("\n")
