"""Eviction times as the device taint eviction controller computes them, with Go's arithmetic:
`timeAdded.Add(time.Duration(tolerationSeconds) * time.Second)` wraps past 292 years of int64
nanoseconds, and times past year 9999 (in UTC) are times like any other."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_taints import T0, evicted, rule, slice_, taints, toleration, used

from kubefit.solver.taints.go_time import SECOND, add, duration_text, parse_time, rfc3339, seconds_duration

INT64_MAX = (1 << 63) - 1


def test_a_duration_of_seconds_wraps_as_gos_int64_multiplication() -> None:
    assert seconds_duration(600) == 600 * SECOND
    assert seconds_duration(9_223_372_036) == 9_223_372_036 * SECOND  # the last that fits
    assert seconds_duration(9_223_372_037) == 9_223_372_037 * SECOND - (1 << 64)
    assert seconds_duration(INT64_MAX) == -SECOND
    assert seconds_duration(10**12) == 3_875_820_019_684_212_736
    assert duration_text(seconds_duration(10**12)) == "3875820019.684212736s"
    assert duration_text(-SECOND) == "-1s"


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
def test_times_print_as_rfc3339_whole_seconds_where_python_can_print_them(moment: datetime) -> None:
    text = moment.isoformat() + "Z"
    # (strftime leaves years before 1000 unpadded; RFC 3339 has four digits)
    assert rfc3339(parse_time(text) or 0) == f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%SZ")


def test_years_outside_1_to_9999_print_as_go_prints_them() -> None:
    first = parse_time("0001-01-01T00:00:00Z")
    last = parse_time("9999-12-31T23:59:59Z")
    assert first is not None and last is not None
    assert rfc3339(first - SECOND) == "0000-12-31T23:59:59Z"
    assert rfc3339(first - 367 * 86_400 * SECOND) == "-0001-12-31T00:00:00Z"
    assert rfc3339(last + SECOND) == "10000-01-01T00:00:00Z"
    assert parse_time("9999-12-31T23:59:59-05:00") == last + 5 * 3600 * SECOND


def test_adding_saturates_at_the_ends_of_gos_seconds_instead_of_overflowing() -> None:
    start = parse_time("2025-01-01T00:00:00Z") or 0
    assert add(start, seconds_duration(600)) == start + 600 * SECOND
    huge = (1 << 63) * SECOND * 4
    assert add(huge, SECOND) == add(huge, 2 * SECOND)  # pinned at Go's last second


def _later(seconds_ns: int) -> str:
    moment = datetime.fromisoformat(T0.replace("Z", "+00:00")) + timedelta(microseconds=seconds_ns // 1000)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_toleration_of_int64_max_seconds_wraps_to_one_second_before_the_taint(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    docs = [
        slice_(),
        *used("a", tolerations=(toleration(seconds=INT64_MAX),)),
        rule("r", "NoExecute", {"device": "gpu-0"}),
    ]
    code, result, _ = taints(tmp_path, docs)
    assert code == 1
    assert evicted(result) == {"default/a": ("2025-06-01T09:59:59Z", "DeviceTaintRule r")}
    err = caplog.text
    assert "tolerationSeconds 9223372036854775807 overflows Go's time.Duration" in err
    assert "counts it as -1s" in err


def test_a_toleration_of_a_trillion_seconds_evicts_when_the_wrapped_duration_ends(tmp_path: Path) -> None:
    docs = [slice_(), *used("a", tolerations=(toleration(seconds=10**12),)), rule("r", "NoExecute", {})]
    code, result, _ = taints(tmp_path, docs)
    assert code == 1
    assert evicted(result) == {"default/a": (_later(3_875_820_019_684_212_736), "DeviceTaintRule r")}


def test_a_taint_added_in_year_9999_evicts_in_year_10000(tmp_path: Path) -> None:
    docs = [
        slice_(),
        *used("a", tolerations=(toleration(seconds=600),)),
        rule("r", "NoExecute", {}, time="9999-12-31T23:59:59-05:00"),
    ]
    code, result, _ = taints(tmp_path, docs)
    assert code == 1
    assert evicted(result) == {"default/a": ("10000-01-01T05:09:59Z", "DeviceTaintRule r")}
    (item,) = [i for i in result["items"] if i["kind"] == "DeviceTaintRule"]
    assert item["status"]["conditions"][0]["lastTransitionTime"] == "10000-01-01T04:59:59Z"


def test_without_timeadded_a_wrapped_toleration_is_told_relative_to_the_taint(tmp_path: Path) -> None:
    docs = [
        slice_(),
        *used("a", tolerations=(toleration(seconds=INT64_MAX),)),
        rule("r", "NoExecute", {}, time=None),
    ]
    _, result, _ = taints(tmp_path, docs)
    assert evicted(result) == {"default/a": ("1s before the taint is added", "DeviceTaintRule r")}
