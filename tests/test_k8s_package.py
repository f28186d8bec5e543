"""The client's package is registered without running its __init__ (kubefit/k8s_package.py): kubefit's
imports of the models leave its REST and watch helpers unloaded, and code that asks the package for
anything else still gets the whole client. Each check runs in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_reading_objects_leaves_the_rest_of_the_client_unloaded() -> None:
    code = (
        "import sys\n"
        "from kubefit.translate.loader import load_text\n"
        "load_text('apiVersion: v1\\nkind: Node\\nmetadata: {name: n1}\\n')\n"
        "print('kubernetes.config' in sys.modules, 'urllib3' in sys.modules)\n"
    )
    assert _run(code) == "False False"


def test_the_package_itself_still_gives_everything() -> None:
    code = (
        "import kubefit, sys\n"
        "import kubernetes\n"
        "from kubernetes import config, watch\n"
        "print(kubernetes.__version__ != '', callable(config.load_kube_config), watch.Watch is not None)\n"
    )
    assert _run(code) == "True True True"


def test_a_client_imported_first_is_left_alone() -> None:
    code = "import kubernetes, kubefit, sys\nprint(sys.modules['kubernetes'].__dict__.get('__getattr__'))\n"
    assert _run(code) == "None"
