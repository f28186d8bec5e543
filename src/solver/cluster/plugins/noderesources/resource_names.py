"""Which resource names the scheduler tracks as scalar resources, and which are extended resources
(v1helper.IsExtendedResourceName, schedutil.IsScalarResourceName).

Names reach the scheduler validated by the API server, so the qualified-name rule upstream also checks
for extended resources always holds here."""

from __future__ import annotations

NATIVE_PREFIX = "kubernetes.io/"
REQUESTS_PREFIX = "requests."
HUGEPAGES_PREFIX = "hugepages-"
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"


def is_extended(name: str) -> bool:
    """A vendor-domain resource (example.com/foo): not native, not a quota `requests.` name."""
    native = "/" not in name or NATIVE_PREFIX in name
    return not native and not name.startswith(REQUESTS_PREFIX)


def is_scalar(name: str) -> bool:
    """Counted among framework.Resource's scalar resources: extended, hugepages, prefixed native
    (kubernetes.io/...) and attachable-volume resources. Other names are not counted at all."""
    return (
        is_extended(name)
        or name.startswith(HUGEPAGES_PREFIX)
        or NATIVE_PREFIX in name
        or name.startswith(ATTACHABLE_VOLUMES_PREFIX)
    )
