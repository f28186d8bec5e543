"""Kubernetes URL library: url(), isURL() and the URL accessors.

A string is a URL when Go's `url.ParseRequestURI` accepts it (an absolute URI
or an absolute path); the value is then parsed again with `url.Parse`, which
splits off the fragment. Both parsers are reproduced here from Go's net/url
rules, byte for byte on the UTF-8 form, with Go's error messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter, methodcaller
from typing import ClassVar

from ....model.errors import CelRuntimeError
from ....model.go_strings import go_quote
from .. import types as t
from ..registry import Library
from ..values import CelObject
from .costs import TRAVERSAL, UNIT
from .overloads import accepts

library = Library("kubernetes.urls")

# Go's net/url escaping modes.
_PATH, _PATH_SEGMENT, _HOST, _ZONE, _USER_PASSWORD, _QUERY_COMPONENT, _FRAGMENT = range(7)


class URLError(Exception):
    """A net/url parse failure, worded as Go words it."""


def _is_alnum_byte(c: int) -> bool:
    return 0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A


def _should_escape(c: int, mode: int) -> bool:
    if _is_alnum_byte(c):
        return False
    ch = chr(c)
    if mode in (_HOST, _ZONE) and ch in "!$&'()*+,;=:[]<>\"":
        return False
    if ch in "-_.~":
        return False
    if ch in "$&+,/:;=?@":
        if mode == _PATH:
            return ch == "?"
        if mode == _PATH_SEGMENT:
            return ch in "/;,?"
        if mode == _USER_PASSWORD:
            return ch in "@/?:"
        if mode == _QUERY_COMPONENT:
            return True
        if mode == _FRAGMENT:
            return False
    # Fragments may keep these sub-delimiters; everything else is escaped.
    return not (mode == _FRAGMENT and ch in "!()*")


def _is_hex(c: int) -> bool:
    return 0x30 <= c <= 0x39 or 0x41 <= c <= 0x46 or 0x61 <= c <= 0x66


def _escape_error(fragment: bytes) -> URLError:
    return URLError("invalid URL escape " + go_quote(fragment.decode("utf-8", "replace")))


def _unescape(text: str, mode: int) -> str:
    """Go's url.unescape: validate and decode %XX escapes (and '+' in query components)."""
    s = text.encode("utf-8", "surrogatepass")
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x25:  # '%'
            if i + 2 >= len(s) or not _is_hex(s[i + 1]) or not _is_hex(s[i + 2]):
                raise _escape_error(s[i : i + 3])
            if mode == _HOST and int(chr(s[i + 1]), 16) < 8 and s[i : i + 3] != b"%25":
                raise _escape_error(s[i : i + 3])
            if mode == _ZONE:
                v = int(s[i + 1 : i + 3], 16)
                if s[i : i + 3] != b"%25" and v != 0x20 and _should_escape(v, _HOST):
                    raise _escape_error(s[i : i + 3])
            i += 3
        else:
            if mode in (_HOST, _ZONE) and c < 0x80 and _should_escape(c, mode):
                raise URLError("invalid character " + go_quote(chr(c)) + " in host name")
            i += 1
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x25:
            out.append(int(s[i + 1 : i + 3], 16))
            i += 3
        elif c == 0x2B and mode == _QUERY_COMPONENT:
            out.append(0x20)
            i += 1
        else:
            out.append(c)
            i += 1
    return out.decode("utf-8", "replace")


def _escape(text: str, mode: int) -> str:
    out = []
    for c in text.encode("utf-8", "surrogatepass"):
        if c == 0x20 and mode == _QUERY_COMPONENT:
            out.append("+")
        elif _should_escape(c, mode):
            out.append(f"%{c:02X}")
        else:
            out.append(chr(c))
    return "".join(out)


def _valid_encoded(text: str, mode: int) -> bool:
    for c in text.encode("utf-8", "surrogatepass"):
        if chr(c) in "!$&'()*+,;=:@[]%":
            continue
        if _should_escape(c, mode):
            return False
    return True


def _valid_optional_port(port: str) -> bool:
    if port == "":
        return True
    if port[0] != ":":
        return False
    return all("0" <= ch <= "9" for ch in port[1:])


@dataclass
class _Parsed:
    scheme: str = ""
    opaque: str = ""
    user: tuple[str, str | None] | None = None
    host: str = ""
    path: str = ""
    raw_path: str = ""
    omit_host: bool = False
    force_query: bool = False
    raw_query: str = ""
    fragment: str = ""
    raw_fragment: str = ""


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, ch in enumerate(raw):
        if "a" <= ch <= "z" or "A" <= ch <= "Z":
            continue
        if "0" <= ch <= "9" or ch in "+-.":
            if i == 0:
                return "", raw
            continue
        if ch == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


def _parse_host(host: str) -> str:
    if host.startswith("["):
        i = host.rfind("]")
        if i < 0:
            raise URLError("missing ']' in host")
        colon_port = host[i + 1 :]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {go_quote(colon_port)} after host")
        zone = host[:i].find("%25")
        if zone >= 0:
            return _unescape(host[:zone], _HOST) + _unescape(host[zone:i], _ZONE) + _unescape(host[i:], _HOST)
    else:
        i = host.rfind(":")
        if i != -1:
            colon_port = host[i:]
            if not _valid_optional_port(colon_port):
                raise URLError(f"invalid port {go_quote(colon_port)} after host")
    return _unescape(host, _HOST)


def _parse_authority(authority: str, url: _Parsed) -> None:
    i = authority.rfind("@")
    url.host = _parse_host(authority[i + 1 :] if i >= 0 else authority)
    if i < 0:
        return
    userinfo = authority[:i]
    for ch in userinfo:
        if not (ch.isascii() and ch.isalnum()) and ch not in "-._:~!$&'()*+,;=%@":
            raise URLError("net/url: invalid userinfo")
    if ":" not in userinfo:
        url.user = (_unescape(userinfo, _USER_PASSWORD), None)
    else:
        name, _, password = userinfo.partition(":")
        url.user = (_unescape(name, _USER_PASSWORD), _unescape(password, _USER_PASSWORD))


def _parse(raw: str, via_request: bool) -> _Parsed:
    """Go's url.parse (without fragment handling)."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in raw):
        raise URLError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise URLError("empty url")
    url = _Parsed()
    if raw == "*":
        url.path = "*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        url.force_query = True
        rest = rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if url.scheme:
            url.opaque = rest
            return url
        if via_request:
            raise URLError("invalid URI for request")
        segment = rest.partition("/")[0]
        if ":" in segment:
            raise URLError("first path segment in URL cannot contain colon")
    if (url.scheme or (not via_request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, rest = rest[2:], ""
        slash = authority.find("/")
        if slash >= 0:
            authority, rest = authority[:slash], authority[slash:]
        _parse_authority(authority, url)
    elif url.scheme and rest.startswith("/"):
        url.omit_host = True
    url.path = _unescape(rest, _PATH)
    url.raw_path = "" if _escape(url.path, _PATH) == rest else rest
    return url


def _url_error(raw: str, err: URLError) -> str:
    return f"parse {go_quote(raw)}: {err}"


def parse_request_uri(raw: str) -> _Parsed:
    """Go's url.ParseRequestURI; raises URLError carrying Go's full message."""
    try:
        return _parse(raw, via_request=True)
    except URLError as e:
        raise URLError(_url_error(raw, e)) from e


def parse_url(raw: str) -> _Parsed:
    """Go's url.Parse: the fragment is cut off first and unescaped separately."""
    head, sep, frag = raw.partition("#")
    try:
        url = _parse(head, via_request=False)
    except URLError as e:
        raise URLError(_url_error(head, e)) from e
    if sep and frag:
        try:
            url.fragment = _unescape(frag, _FRAGMENT)
        except URLError as e:
            raise URLError(_url_error(raw, e)) from e
        url.raw_fragment = "" if _escape(url.fragment, _FRAGMENT) == frag else frag
    return url


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _kept_escaping(raw: str, decoded: str, mode: int) -> str | None:
    """The text as originally escaped, when it is a valid encoding of the decoded value (Go's
    EscapedPath and EscapedFragment prefer it to escaping afresh)."""
    if raw and _valid_encoded(raw, mode):
        try:
            if _unescape(raw, mode) == decoded:
                return raw
        except URLError:
            pass
    return None


class CelURL(CelObject):
    """A parsed URL (`kubernetes.URL`)."""

    cel_type: ClassVar[t.CelType] = t.URL
    go_type: ClassVar[str] = "cel.URL"

    def __init__(self, parsed: _Parsed) -> None:
        self._u = parsed

    @property
    def scheme(self) -> str:
        return self._u.scheme

    @property
    def host(self) -> str:
        return self._u.host

    @property
    def hostname(self) -> str:
        return _split_host_port(self._u.host)[0]

    @property
    def port(self) -> str:
        return _split_host_port(self._u.host)[1]

    @property
    def escaped_path(self) -> str:
        u = self._u
        kept = _kept_escaping(u.raw_path, u.path, _PATH)
        if kept is not None:
            return kept
        if u.path == "*":
            return "*"
        return _escape(u.path, _PATH)

    @property
    def escaped_fragment(self) -> str:
        u = self._u
        kept = _kept_escaping(u.raw_fragment, u.fragment, _FRAGMENT)
        return kept if kept is not None else _escape(u.fragment, _FRAGMENT)

    def query(self) -> dict[str, list[str]]:
        """Go's URL.Query(): malformed pairs are skipped, keys and values unescaped."""
        result: dict[str, list[str]] = {}
        rest = self._u.raw_query
        while rest:
            pair, _, rest = rest.partition("&")
            if ";" in pair or pair == "":
                continue
            key, _, value = pair.partition("=")
            try:
                key = _unescape(key, _QUERY_COMPONENT)
                value = _unescape(value, _QUERY_COMPONENT)
            except URLError:
                continue
            result.setdefault(key, []).append(value)
        return result

    def __str__(self) -> str:
        """Go's URL.String(), which is also what URL equality compares."""
        u = self._u
        out = []
        if u.scheme:
            out.append(u.scheme + ":")
        if u.opaque:
            out.append(u.opaque)
        else:
            if (u.scheme or u.host or u.user is not None) and not (
                u.omit_host and u.host == "" and u.user is None
            ):
                if u.host or u.path or u.user is not None:
                    out.append("//")
                if u.user is not None:
                    name, password = u.user
                    out.append(_escape(name, _USER_PASSWORD))
                    if password is not None:
                        out.append(":" + _escape(password, _USER_PASSWORD))
                    out.append("@")
                if u.host:
                    out.append(_escape(u.host, _HOST))
            path = self.escaped_path
            if path and path[0] != "/" and u.host:
                out.append("/")
            if not "".join(out) and ":" in path.partition("/")[0]:
                out.append("./")
            out.append(path)
        if u.force_query or u.raw_query:
            out.append("?" + u.raw_query)
        if u.fragment:
            out.append("#" + self.escaped_fragment)
        return "".join(out)

    def __repr__(self) -> str:
        return f"url({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelURL) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


@library.function("url", params=(t.STRING,), result=t.URL, id="string_to_url", costs=TRAVERSAL)
def url(s: str) -> CelURL:
    try:
        # ParseRequestURI decides validity; Parse then splits off the fragment.
        parse_request_uri(s)
        return CelURL(parse_url(s))
    except URLError as e:
        raise CelRuntimeError(f"URL parse error during conversion from string: {e}") from e


library.function("isURL", params=(t.STRING,), result=t.BOOL, id="is_url_string", costs=UNIT)(
    accepts(parse_request_uri, URLError)
)

for _name, _id, _result, _get in (
    ("getScheme", "url_get_scheme", t.STRING, attrgetter("scheme")),
    ("getHost", "url_get_host", t.STRING, attrgetter("host")),
    ("getHostname", "url_get_hostname", t.STRING, attrgetter("hostname")),
    ("getPort", "url_get_port", t.STRING, attrgetter("port")),
    ("getEscapedPath", "url_get_escaped_path", t.STRING, attrgetter("escaped_path")),
    ("getQuery", "url_get_query", t.map_of(t.STRING, t.list_of(t.STRING)), methodcaller("query")),
):
    library.function(_name, member=True, params=(t.URL,), result=_result, id=_id, costs=UNIT)(_get)
