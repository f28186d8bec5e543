"""Kubernetes URL library."""

from __future__ import annotations

from typing import Any

import pytest
from cel_library_support import Declaration, LibraryUnderTest

from kubefit.model.errors import CelRuntimeError
from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import urls as lib
from kubefit.translate.cel.values import equal

LIB = LibraryUnderTest(lib.library)
overload = LIB.overload


DECLARATIONS: list[Declaration] = [
    ("string_to_url", "url", False, (t.STRING,), t.URL),
    ("is_url_string", "isURL", False, (t.STRING,), t.BOOL),
    ("url_get_scheme", "getScheme", True, (t.URL,), t.STRING),
    ("url_get_host", "getHost", True, (t.URL,), t.STRING),
    ("url_get_hostname", "getHostname", True, (t.URL,), t.STRING),
    ("url_get_port", "getPort", True, (t.URL,), t.STRING),
    ("url_get_escaped_path", "getEscapedPath", True, (t.URL,), t.STRING),
    ("url_get_query", "getQuery", True, (t.URL,), t.map_of(t.STRING, t.list_of(t.STRING))),
]

test_declaration = LIB.declaration_test(DECLARATIONS, count=8)


def url(text: str) -> lib.CelURL:
    value = overload("string_to_url").impl(text)
    assert isinstance(value, lib.CelURL)
    assert value.cel_type == t.URL
    return value


def get(accessor: str, text: str) -> Any:
    return overload(accessor).impl(url(text))


ACCESSORS: list[tuple[str, str, Any]] = [
    ("url_get_scheme", "/path", ""),
    ("url_get_scheme", "https://example.com/", "https"),
    ("url_get_scheme", "HTTPS://example.com/", "https"),
    ("url_get_host", "https://example.com:80/", "example.com:80"),
    ("url_get_host", "https://example.com/", "example.com"),
    ("url_get_host", "https://[::1]:80/", "[::1]:80"),
    ("url_get_host", "https://[::1]/", "[::1]"),
    ("url_get_host", "/path", ""),
    ("url_get_host", "https://user:pass@example.com:80/path?query=val#fragment", "example.com:80"),
    ("url_get_hostname", "https://example.com:80/", "example.com"),
    ("url_get_hostname", "https://127.0.0.1:80/", "127.0.0.1"),
    ("url_get_hostname", "https://[::1]:80/", "::1"),
    ("url_get_hostname", "/path", ""),
    ("url_get_hostname", "http://[fe80::1%25en0]/", "fe80::1%en0"),
    ("url_get_port", "https://example.com:80/", "80"),
    ("url_get_port", "https://example.com/", ""),
    ("url_get_port", "/path", ""),
    ("url_get_port", "https://example.com:/", ""),
    ("url_get_escaped_path", "https://example.com/path", "/path"),
    ("url_get_escaped_path", "https://example.com/path with spaces/", "/path%20with%20spaces/"),
    ("url_get_escaped_path", "https://example.com", ""),
    ("url_get_escaped_path", "https://example.com/a%2Fb", "/a%2Fb"),  # the original escaping is kept
    ("url_get_escaped_path", "https://example.com/%7e", "/%7e"),
    ("url_get_escaped_path", "https://example.com/caf\u00e9", "/caf%C3%A9"),
    ("url_get_escaped_path", "*", "*"),
    ("url_get_query", "https://example.com/path?k1=a&k2=b&k2=c", {"k1": ["a"], "k2": ["b", "c"]}),
    (
        "url_get_query",
        "https://example.com/path?key with spaces=value with spaces",
        {"key with spaces": ["value with spaces"]},
    ),
    ("url_get_query", "https://example.com/path?", {}),
    ("url_get_query", "https://example.com/path", {}),
    ("url_get_query", "/p?a=1+2&b=%41&c&=x&d=%zz&e=1;f=2", {"a": ["1 2"], "b": ["A"], "c": [""], "": ["x"]}),
    ("url_get_query", "/p?x=1#frag=2", {"x": ["1"]}),
]


@pytest.mark.parametrize(("accessor", "text", "expected"), ACCESSORS)
def test_accessor(accessor: str, text: str, expected: Any) -> None:
    assert get(accessor, text) == expected


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("https://user:pass@example.com:80/path?query=val#fragment", True),
        ("/absolute-path", True),
        ("https://a:b:c/", False),
        ("../relative-path", False),
        ("", False),
        ("*", True),
        ("mailto:someone@example.com", True),
        ("example.com", False),
        ("http://exa mple.com/", False),
        ("http://example.com/\x7f", False),
        ("https://[::1/", False),
        ("https://x/%zz", False),
        ("1http://x/", False),
        (":foo", False),
        ("http://us er@x/", False),
        # ParseRequestURI keeps the fragment in the path, so a bad escape there is not seen.
        ("/path?q#%zz", True),
    ],
)
def test_is_url(text: str, valid: bool) -> None:
    assert overload("is_url_string").impl(text) is valid


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("https://a:b:c/", 'parse "https://a:b:c/": invalid port ":c" after host'),
        ("../relative-path", 'parse "../relative-path": invalid URI for request'),
        ("", 'parse "": empty url'),
        (":foo", 'parse ":foo": missing protocol scheme'),
        ("http://x/\n", 'parse "http://x/\\n": net/url: invalid control character in URL'),
        ("https://[::1/", "parse \"https://[::1/\": missing ']' in host"),
        ("https://x/%zz", 'parse "https://x/%zz": invalid URL escape "%zz"'),
        ("https://x/%4", 'parse "https://x/%4": invalid URL escape "%4"'),
        ("http://exa mple.com/", 'parse "http://exa mple.com/": invalid character " " in host name'),
        ("http://a%20b/", 'parse "http://a%20b/": invalid URL escape "%20"'),
        ("http://us er@x/", 'parse "http://us er@x/": net/url: invalid userinfo'),
        ("https://[::1]x/", 'parse "https://[::1]x/": invalid port "x" after host'),
        # Valid for ParseRequestURI, but Parse rejects the fragment.
        ("/path?q#%zz", 'parse "/path?q#%zz": invalid URL escape "%zz"'),
    ],
)
def test_url_error(text: str, detail: str) -> None:
    with pytest.raises(CelRuntimeError) as info:
        overload("string_to_url").impl(text)
    assert str(info.value) == f"URL parse error during conversion from string: {detail}"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        (
            "https://user:pass@example.com:80/path?query=val#fragment",
            "https://user:pass@example.com:80/path?query=val#fragment",
        ),
        (
            "https://example.com/path with spaces/?a=b c#x y",
            "https://example.com/path%20with%20spaces/?a=b c#x%20y",
        ),
        ("HTTP://Example.com/", "http://Example.com/"),
        ("/absolute-path", "/absolute-path"),
        ("mailto:someone@example.com", "mailto:someone@example.com"),
        ("https://example.com/path?", "https://example.com/path?"),
        ("file:///etc/hosts", "file:///etc/hosts"),
    ],
)
def test_string_form(text: str, canonical: str) -> None:
    assert str(url(text)) == canonical


def test_equality() -> None:
    assert equal(url("https://example.com/a"), url("https://example.com/a"))
    assert not equal(url("https://example.com/a"), url("https://example.com/b"))
    assert url("https://example.com/%7e") != url("https://example.com/~")
    assert hash(url("/x")) == hash(url("/x"))
    assert not equal(url("/x"), "/x")


def test_costs() -> None:
    assert overload("string_to_url").cost(["https://example.com/abcdefgh"]) == 3
    assert overload("url_get_query").cost([url("/x")]) == 1
    assert overload("string_to_url").estimate([100]) == 10
