"""The official client's package, registered without running its `__init__` until something asks it.

kubefit reads only the client's models (`kubernetes.client.models`), but importing any submodule runs
the package's `__init__` first, which imports its REST configuration, watch, stream, informer and
leader-election helpers (requests, urllib3, oauthlib, google-auth: about a tenth of a second, a
tenth of a whole `allocate` on a small cluster). The package module is registered as Python would
make it, minus running `__init__`: submodules import as usual, and the first attribute asked of the
package itself (`kubernetes.__version__`, `kubernetes.config` before it was imported) runs `__init__`
then, so code that uses the rest of the client sees no difference.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any


def register() -> None:
    if "kubernetes" in sys.modules:
        return
    spec = importlib.util.find_spec("kubernetes")
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not installed: the import that needs it says so
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def __getattr__(name: str) -> Any:
        # Once: the package's own code defines every attribute from here on.
        del module.__dict__["__getattr__"]
        loader.exec_module(module)
        return module.__dict__[name] if name in module.__dict__ else getattr(module, name)

    module.__dict__["__getattr__"] = __getattr__
    sys.modules["kubernetes"] = module
