"""Times and durations as Go's `time` package computes them, for the eviction controller's arithmetic.

Upstream computes an eviction as `timeAdded.Add(time.Duration(tolerationSeconds) * time.Second)`:
`time.Duration` is int64 nanoseconds and Go's integer multiplication wraps, so a tolerationSeconds
past 9,223,372,036 (292 years) wraps around (`math.MaxInt64` seconds is -1s: the pod goes at once),
while `Time.Add` itself saturates at the ends of its int64 seconds. A time is kept here as whole
nanoseconds since the Unix epoch (UTC), so that neither Python's datetime range (years 1-9999) nor
its rounding gets in the way: a `timeAdded` in year 9999 with a negative offset is in year 10000 UTC,
and an eviction 292 years later prints as Go prints it (`metav1.Time` formats it with RFC 3339's
layout and no range check).
"""

from __future__ import annotations

from datetime import datetime

SECOND = 1_000_000_000  # time.Second, in nanoseconds
_INT64_MAX = (1 << 63) - 1
# Go keeps seconds since January 1 of year 1; the Unix epoch is this many seconds after it.
_UNIX_TO_INTERNAL = 62_135_596_800
_EPOCH_ORDINAL = 719_163  # date(1970, 1, 1).toordinal()


def int64(value: int) -> int:
    """`value` wrapped into int64, as Go's integer arithmetic leaves it."""
    return ((value + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def seconds_duration(seconds: int) -> int:
    """`time.Duration(seconds) * time.Second`, in nanoseconds (wrapped as Go wraps it)."""
    return int64(int64(seconds) * SECOND)


def add(time_ns: int, duration_ns: int) -> int:
    """`Time.Add`: exact, but the seconds saturate at the ends of Go's int64 (from year 1)."""
    seconds, nanos = divmod(time_ns, SECOND)
    internal = seconds + _UNIX_TO_INTERNAL
    # Go splits the duration into whole seconds (truncated toward zero) and the rest.
    step = _trunc_div(duration_ns, SECOND)
    nanos += duration_ns - step * SECOND
    if nanos >= SECOND:
        step, nanos = step + 1, nanos - SECOND
    elif nanos < 0:
        step, nanos = step - 1, nanos + SECOND
    total = internal + step
    if total > _INT64_MAX:
        total = _INT64_MAX
    elif total < -_INT64_MAX:
        total = -_INT64_MAX
    return (total - _UNIX_TO_INTERNAL) * SECOND + nanos


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def parse_time(text: str) -> int | None:
    """An RFC 3339 time (as the models print it, `isoformat`) in nanoseconds since the epoch; "" -> None.
    The offset is applied in whole numbers, never in a datetime (which ends at year 9999)."""
    if not text:
        return None
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    offset = moment.utcoffset()
    wall = moment.replace(tzinfo=None)
    seconds = (wall.toordinal() - _EPOCH_ORDINAL) * 86_400 + wall.hour * 3600 + wall.minute * 60 + wall.second
    if offset is not None:
        seconds -= offset.days * 86_400 + offset.seconds
    return seconds * SECOND + wall.microsecond * 1000


def _civil(days: int) -> tuple[int, int, int]:
    """Days since 1970-01-01 -> (year, month, day) in the proleptic Gregorian calendar (year 0 exists,
    as in Go)."""
    days += 719_468
    era = days // 146_097
    doe = days - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def rfc3339(time_ns: int) -> str:
    """`t.UTC().Format(time.RFC3339)`, as metav1.Time writes a time: whole seconds, a year past 9999
    in full and one before year 1 with its sign (`-0001`)."""
    seconds = time_ns // SECOND
    days, rest = divmod(seconds, 86_400)
    year, month, day = _civil(days)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    sign = "-" if year < 0 else ""
    return f"{sign}{abs(year):04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"


def duration_text(duration_ns: int) -> str:
    """A duration in seconds, with the nanoseconds a wrapped one keeps (`-1s`, `3875820019.684212736s`)."""
    sign = "-" if duration_ns < 0 else ""
    whole, nanos = divmod(abs(duration_ns), SECOND)
    return f"{sign}{whole}.{nanos:09d}".rstrip("0") + "s" if nanos else f"{sign}{whole}s"
