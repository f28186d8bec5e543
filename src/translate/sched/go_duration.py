"""Go's time.Duration as component configs write it (metav1.Duration): parsed and printed as Go does.

Messages quote durations the way Go prints them (`1m30s`, `-1s`, `500ms`), so a value in an
error reads as kube-scheduler would show it.
"""

from __future__ import annotations

NANOSECOND = 1
MICROSECOND = 1000 * NANOSECOND
MILLISECOND = 1000 * MICROSECOND
SECOND = 1000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

_UNITS = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "µs": MICROSECOND,  # U+00B5 micro sign
    "μs": MICROSECOND,  # U+03BC Greek mu
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_LIMIT = 1 << 63


class DurationError(ValueError):
    """Not a Go duration; the message is time.ParseDuration's."""


def _quote(text: str) -> str:
    # The time package's own quoting: bytes outside printable ASCII as \x escapes.
    out = ['"']
    for ch in text:
        if ord(ch) >= 0x80 or ord(ch) < 0x20:
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
        elif ch in ('"', "\\"):
            out.append("\\" + ch)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _digits(text: str, pos: int) -> int:
    while pos < len(text) and "0" <= text[pos] <= "9":
        pos += 1
    return pos


def parse(text: str) -> int:
    """time.ParseDuration: nanoseconds, or DurationError with Go's message."""
    invalid = DurationError("time: invalid duration " + _quote(text))
    rest = text
    negative = False
    if rest[:1] in ("-", "+"):
        negative = rest[0] == "-"
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise invalid
    total = 0
    pos = 0
    while pos < len(rest):
        if not (rest[pos] == "." or "0" <= rest[pos] <= "9"):
            raise invalid
        end = _digits(rest, pos)
        whole = int(rest[pos:end]) if end > pos else 0
        if whole > _LIMIT:
            raise invalid
        has_whole, pos = end > pos, end
        fraction, scale, has_fraction = 0, 1, False
        if pos < len(rest) and rest[pos] == ".":
            end = _digits(rest, pos + 1)
            digits = rest[pos + 1 : end]
            has_fraction, pos = bool(digits), end
            for d in digits:
                # Go stops gaining precision once the fraction would overflow; it keeps reading.
                if fraction > (_LIMIT - 1) // 10:
                    break
                fraction, scale = fraction * 10 + int(d), scale * 10
        if not has_whole and not has_fraction:
            raise invalid
        end = pos
        while end < len(rest) and not (rest[end] == "." or "0" <= rest[end] <= "9"):
            end += 1
        if end == pos:
            raise DurationError("time: missing unit in duration " + _quote(text))
        unit_text, pos = rest[pos:end], end
        unit = _UNITS.get(unit_text)
        if unit is None:
            raise DurationError(f"time: unknown unit {_quote(unit_text)} in duration {_quote(text)}")
        if whole > _LIMIT // unit:
            raise invalid
        value = whole * unit
        if fraction:
            value += int(float(fraction) * (float(unit) / scale))
            if value > _LIMIT:
                raise invalid
        total += value
        if total > _LIMIT:
            raise invalid
    if negative:
        return -total
    if total > _LIMIT - 1:
        raise invalid
    return total


def _fraction(value: int, precision: int) -> tuple[str, int]:
    digits = f"{value % 10**precision:0{precision}d}".rstrip("0")
    return ("." + digits if digits else ""), value // 10**precision


def format_duration(nanoseconds: int) -> str:
    """time.Duration.String(): `0s`, `1.5µs`, `500ms`, `1m30s`, `1h0m0s`."""
    sign = "-" if nanoseconds < 0 else ""
    u = abs(nanoseconds)
    if u == 0:
        return "0s"
    if u < SECOND:
        if u < MICROSECOND:
            return f"{sign}{u}ns"
        precision, unit = (3, "µs") if u < MILLISECOND else (6, "ms")
        frac, whole = _fraction(u, precision)
        return f"{sign}{whole}{frac}{unit}"
    frac, u = _fraction(u, 9)
    text = f"{u % 60}{frac}s"
    u //= 60
    if u:
        text = f"{u % 60}m{text}"
        u //= 60
        if u:
            text = f"{u}h{text}"
    return sign + text
