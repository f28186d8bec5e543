"""KubeSchedulerConfiguration -> the Configuration kubefit's scheduler runs (`model.cluster.profile`).

The configuration is defaulted as kube-scheduler v1 defaults it and refused, with every
problem located in its file, where kube-scheduler would refuse to start with it (`written`). Without a
KubeSchedulerConfiguration the scheduler runs its v1 defaults: one `default-scheduler` profile.
"""

from __future__ import annotations

from ...model.cluster.profile import Configuration, default_profile
from ...model.features import ALL_ON, FeatureGates
from ..kube import ObjectSet

KIND = "KubeSchedulerConfiguration"


def configuration(objects: ObjectSet, gates: FeatureGates = ALL_ON) -> Configuration:
    """The scheduler configuration of the input; InputError when kube-scheduler would not start with it."""
    written = objects.of_kind(KIND)
    if not written:
        return Configuration((default_profile(gates),))
    # The configuration's models, defaulting and validation, imported only for a configuration.
    from .written import written_configuration

    return written_configuration(written, gates)
