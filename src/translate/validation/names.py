"""Name and format rules shared by the validators, worded like apimachinery.

Two layers: `is_*` functions return the bare messages Kubernetes' format checks
produce (so callers can prefix them, as label keys do; CEL's format library
returns them as they are, in its own `Wording`), and the `validate_*` functions
turn a path and a value into `FieldError`s worded as the API server words them
(`field_errors`). Quantities are read in `quantities`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import go_quote, invalid, messages_as_invalid, required, too_long

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
LABEL_KEY_NAME_MAX_LENGTH = 63
DRIVER_NAME_MAX_LENGTH = 63
POOL_NAME_MAX_LENGTH = DNS1123_SUBDOMAIN_MAX_LENGTH
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_C_IDENT_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_LABEL_KEY_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_NAME_FMT + ")?"

_LABEL_RE = re.compile(_LABEL_FMT)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_C_IDENT_RE = re.compile(_C_IDENT_FMT)
_LABEL_KEY_NAME_RE = re.compile(_LABEL_KEY_NAME_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)

_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_C_IDENT_MSG = (
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'"
)
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)


@dataclass(frozen=True)
class Wording:
    """The parts of the format messages that differ between Kubernetes components.

    The API server counts a too-long name in bytes and calls a malformed key a
    label key; CEL's format library, built on an older apimachinery, says
    "characters" and "qualified name". The rules themselves are the same.
    """

    length_unit: str = "bytes"
    qualified_name: str = "a valid label key"


API_SERVER = Wording()


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """apimachinery's RegexError: the rule, optional examples, then the regex."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    # The double space after each example's comma is how Kubernetes prints it.
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_error(length: int, wording: Wording = API_SERVER) -> str:
    return f"must be no more than {length} {wording.length_unit}"


EMPTY_ERROR = "must be non-empty"


def byte_len(value: str) -> int:
    """Kubernetes limits count bytes of the UTF-8 encoding, not characters."""
    # Go strings may hold any bytes; a lone surrogate (possible in CEL strings) is counted, not fatal.
    return len(value.encode("utf-8", "surrogatepass"))


def is_dns1123_label(value: str, wording: Wording = API_SERVER) -> list[str]:
    return list(_dns1123_label_problems(value, wording))


@functools.lru_cache(maxsize=8192)  # device and counter names repeat on every node of a cluster
def _dns1123_label_problems(value: str, wording: Wording) -> tuple[str, ...]:
    errs: list[str] = []
    if byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH, wording))
    if not _LABEL_RE.fullmatch(value):
        if _SUBDOMAIN_RE.fullmatch(value):
            # A valid subdomain that is no label can only be failing on its dots.
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


def is_dns1123_subdomain(value: str, wording: Wording = API_SERVER) -> list[str]:
    errs: list[str] = []
    if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH, wording))
    if not _SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1035_label(value: str, wording: Wording = API_SERVER) -> list[str]:
    errs: list[str] = []
    if byte_len(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1035_LABEL_MAX_LENGTH, wording))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_c_identifier(value: str) -> list[str]:
    """Format only; callers apply their own length limit."""
    if _C_IDENT_RE.fullmatch(value):
        return []
    return [regex_error(_C_IDENT_MSG, _C_IDENT_FMT, "my_name", "MY_NAME", "MyName")]


def is_qualified_name(value: str, wording: Wording = API_SERVER) -> list[str]:
    """A label key: an optional DNS-subdomain prefix and '/', then a name part."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + EMPTY_ERROR)
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix, wording))
    else:
        return [
            f"{wording.qualified_name} "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + EMPTY_ERROR)
    elif byte_len(name) > LABEL_KEY_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(LABEL_KEY_NAME_MAX_LENGTH, wording))
    if not _LABEL_KEY_NAME_RE.fullmatch(name):
        errs.append(
            "name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_label_value(value: str, wording: Wording = API_SERVER) -> list[str]:
    errs: list[str] = []
    if byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH, wording))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


# Resource names (core/v1 helper rules) --------------------------------------------------------

_NATIVE_PREFIX = "kubernetes.io/"
_QUOTA_REQUESTS_PREFIX = "requests."


def is_native_resource_name(name: str) -> bool:
    return "/" not in name or _NATIVE_PREFIX in name


def is_extended_resource_name(name: str) -> bool:
    """Not native, not `requests.`-prefixed, and still a label key once quota prefixes it."""
    if is_native_resource_name(name) or name.startswith(_QUOTA_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(_QUOTA_REQUESTS_PREFIX + name)


def is_node_allocatable_resource_name(name: str) -> bool:
    # Only what the kubelet itself accounts and a DRA driver may take over:
    # CPU, memory and huge pages (ephemeral-storage and extended resources are out).
    return name in ("cpu", "memory") or name.startswith("hugepages-")


# Field-level name validators ---------------------------------------------------------------


def validate_dns1123_label(value: str, path: FieldPath) -> list[FieldError]:
    return messages_as_invalid(path, value, is_dns1123_label(value))


def validate_dns1123_subdomain(value: str, path: FieldPath) -> list[FieldError]:
    return messages_as_invalid(path, value, is_dns1123_subdomain(value))


def validate_label_name(value: str, path: FieldPath) -> list[FieldError]:
    """A label key (qualified name); an empty key fails here too."""
    return messages_as_invalid(path, value, is_qualified_name(value))


def validate_label_value(value: str, path: FieldPath) -> list[FieldError]:
    return messages_as_invalid(path, value, is_label_value(value))


def validate_max_bytes(value: str, path: FieldPath, max_bytes: int) -> list[FieldError]:
    return [too_long(path, max_bytes)] if byte_len(value) > max_bytes else []


def validate_driver_name(value: str, path: FieldPath) -> list[FieldError]:
    """DRA driver names follow the CSI driver name rule: a DNS subdomain of at most 63 bytes.

    The subdomain check runs on the lower-cased name, so upper case letters pass.
    """
    if not value:
        return [required(path)]
    errs = validate_max_bytes(value, path, DRIVER_NAME_MAX_LENGTH)
    errs.extend(messages_as_invalid(path, value, is_dns1123_subdomain(value.lower())))
    return errs


def validate_pool_name(value: str, path: FieldPath) -> list[FieldError]:
    """One or more DNS subdomains joined by '/', at most 253 bytes in all."""
    if not value:
        return [required(path)]
    errs = validate_max_bytes(value, path, POOL_NAME_MAX_LENGTH)
    for part in value.split("/"):
        errs.extend(validate_dns1123_subdomain(part, path))
    return errs


def validate_c_identifier(value: str, path: FieldPath) -> list[FieldError]:
    errs = validate_max_bytes(value, path, DEVICE_MAX_ID_LENGTH)
    errs.extend(messages_as_invalid(path, value, is_c_identifier(value)))
    return errs


def validate_resource_qualified_name(name: str, path: FieldPath) -> list[FieldError]:
    """A device attribute or capacity name: `id` or `domain/id`.

    The domain follows the driver-name rule, the id is a C identifier.
    """
    # Slices repeat the same few names on every device: decide each name once.
    if _valid_resource_qualified_name(name):
        return []
    return _resource_qualified_name_errors(name, path)


@functools.lru_cache(maxsize=8192)
def _valid_resource_qualified_name(name: str) -> bool:
    return not _resource_qualified_name_errors(name, ())


def _resource_qualified_name_errors(name: str, path: FieldPath) -> list[FieldError]:
    parts = name.split("/")
    if len(parts) == 1:
        return validate_c_identifier(parts[0], path)
    if len(parts) > 2:
        return [invalid(path, name, "must not contain more than one slash")]
    domain, ident = parts
    errs: list[FieldError] = []
    if not domain:
        errs.append(invalid(path, "", "the domain must not be empty"))
    else:
        errs.extend(validate_driver_name(domain, path))
    if not ident:
        errs.append(invalid(path, "", "the name must not be empty"))
    else:
        errs.extend(validate_c_identifier(ident, path))
    return errs


def validate_fully_qualified_name(name: str, path: FieldPath) -> list[FieldError]:
    """Like `validate_resource_qualified_name`, but the domain is mandatory."""
    errs = validate_resource_qualified_name(name, path)
    if "/" not in name:
        errs.append(
            invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash")
        )
    return errs


def truncate_key(key: str, max_len: int) -> str:
    """Map keys in error paths are shortened in the middle, as the API server does."""
    max_len = max(max_len, 16)
    if len(key) <= max_len:
        return key
    keep = max_len - 3
    return key[: (keep + 1) // 2] + "..." + key[len(key) - keep // 2 :]


_UUID_HEX = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _uuid_problem(uid: str) -> str | None:
    # The forms google/uuid accepts: plain, urn-prefixed, braced, and 32 bare hex digits.
    n = len(uid)
    if n == 36:
        body = uid
    elif n == 45:
        if uid[:9].lower() != "urn:uuid:":
            return f"invalid urn prefix: {go_quote(uid[:9])}"
        body = uid[9:]
    elif n == 38:
        if uid[0] != "{" or uid[-1] != "}":
            return "invalid bracketed UUID format"
        body = uid[1:-1]
    elif n == 32:
        return None if re.fullmatch(r"[0-9a-fA-F]{32}", uid) else "invalid UUID format"
    else:
        return f"invalid UUID length: {n}"
    return None if _UUID_HEX.fullmatch(body) else "invalid UUID format"


def validate_uid(uid: str, path: FieldPath) -> list[FieldError]:
    problem = _uuid_problem(uid)
    if problem is not None:
        return [invalid(path, uid, f"error validating uid: {problem}")]
    if len(uid) != 36 or uid != uid.lower():
        return [
            invalid(
                path,
                uid,
                "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` "
                "with lowercase hexadecimal characters",
            )
        ]
    return []
