"""The build step that makes the shared library: go build -buildmode=c-shared
of ../../cmd/libdeathstacks into the package (pyproject.toml has the rest).

DEATHSTACKS_PREBUILT=/path/to/libdeathstacks.so copies a library built
before instead of building it again."""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
LIBRARY = "libdeathstacks.so"


class BuildWithGo(build_py):
    """build_py, then the Go shared library into the built package."""

    def run(self):
        super().run()
        out = os.path.join(os.path.abspath(self.build_lib), "deathstacks", LIBRARY)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        prebuilt = os.environ.get("DEATHSTACKS_PREBUILT")
        if prebuilt:
            shutil.copyfile(prebuilt, out)
            return
        if not os.path.isdir(os.path.join(ROOT, "cmd", "libdeathstacks")):
            raise RuntimeError(f"deathstacks: no Go sources at {ROOT}: build from the repository's env/python")
        if shutil.which("go") is None:
            raise RuntimeError("deathstacks: building the shared library needs Go 1.26 on the PATH")
        subprocess.check_call(["go", "build", "-buildmode=c-shared", "-o", out, "./cmd/libdeathstacks"],
                              cwd=ROOT)


class BinaryDistribution(Distribution):
    """A platform wheel: it carries a native library."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithGo}, distclass=BinaryDistribution)
