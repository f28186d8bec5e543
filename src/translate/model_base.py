"""Shared pieces for kubefit's own object models (kinds no API server serves)."""

from __future__ import annotations

from typing import Annotated, Any

from kubernetes.client.models import V1ObjectMeta
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def _number_as_text(value: Any) -> Any:
    # A quantity written as a YAML number (`cpu: 2`) is accepted, as Kubernetes does.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value) if isinstance(value, float) else str(value)
    return value


QuantityText = Annotated[str, BeforeValidator(_number_as_text)]


class KubefitModel(BaseModel):
    """camelCase on the wire, snake_case in Python, unknown fields refused (the loader warns)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=False)


class ObjectModel(KubefitModel):
    api_version: str = Field(alias="apiVersion")
    kind: str
    metadata: V1ObjectMeta | None = None
