"""The wheel's build step beyond pyproject.toml: ship kernels compiled for a named CPU (jitfish/runtime/prebuilt.py).

``build_py`` copies the package into the build folder, then compiles the kernels a UCI start needs from
that copy and packs them beside it (``kernels.tar.xz``, ``kernels.json``): about 30 s on two cores.  An
editable install, ``JITFISH_PREBUILT=0``, or a build that cannot compile them (no Numba in the build
environment, another CPU) makes a wheel without them, whose first start compiles as a checkout's does.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        package = Path(self.build_lib, "jitfish").resolve()
        for name in ("kernels.json", "kernels.tar.xz"):  # never a stale pair from an earlier build
            (package / name).unlink(missing_ok=True)
        if self.editable_mode or os.environ.get("JITFISH_PREBUILT") == "0":
            return
        env = dict(os.environ, PYTHONPATH=str(package.parent))
        done = subprocess.run([sys.executable, "-m", "jitfish.runtime.prebuilt", str(package)], env=env)
        if done.returncode != 0:
            print("jitfish: building without prebuilt kernels (see above); a first start compiles them")


setup(cmdclass={"build_py": BuildWithKernels})
