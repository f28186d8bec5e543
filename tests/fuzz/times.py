"""Times and durations at and past their ends (a catalog: see values).

A metav1.Time is RFC 3339 from year 0001 to 9999 (with offsets that carry it past either end in UTC);
a toleration's seconds are an int64 that the eviction controller multiplies into a time.Duration,
which wraps past 9,223,372,036 seconds; Kubernetes reads fractions, leap seconds and lowercase
separators its own way.
"""

from __future__ import annotations

from .values import register

TIMES = (
    "9999-12-31T23:59:59Z",
    "9999-12-31T23:59:59-05:00",
    "9999-12-31T23:59:59.999999999Z",
    "0001-01-01T00:00:00Z",
    "0001-01-01T00:00:00+14:00",
    "0000-01-01T00:00:00Z",
    "10000-01-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
    "1969-12-31T23:59:59.5Z",
    "2025-02-29T00:00:00Z",
    "2024-02-29T24:00:00Z",
    "2025-06-30T23:59:60Z",
    "2025-06-01t10:00:00z",
    "2025-06-01 10:00:00",
    "2025-06-01T10:00:00+25:00",
    "2025-06-01",
    "",
    "now",
    0,
    -1,
    2**63,
)

DURATIONS = (
    0,
    -1,
    1,
    9_223_372_036,
    9_223_372_037,
    10**12,
    2**62,
    2**63 - 1,
    2**63,
    -(2**63),
    2**64,
    10**30,
    1.5,
    "600",
    None,
)

register(("time", "timestamp"), TIMES)
register(("seconds", "graceperiod", "deadline"), DURATIONS)
