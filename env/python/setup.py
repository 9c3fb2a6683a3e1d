"""The build step that makes the shared library: go build -buildmode=c-shared
of ../../cmd/libdeathstacks into the package (pyproject.toml has the rest).
It needs Go 1.26 and a C compiler (cgo's: gcc or clang, or the one CC
names), and takes about a minute.

DEATHSTACKS_PREBUILT=/path/to/libdeathstacks.so copies a library built
before instead of building it again.

The wheel is a platform wheel for any Python 3, py3-none-<platform>: it
carries a native library, which ctypes loads, so it depends on the
platform but on no Python ABI. It installs where there is neither Go nor a
C compiler."""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:  # setuptools 70.1 and later have the command; before, the wheel package has it
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
LIBRARY = "libdeathstacks.so"


def say(message: str) -> None:
    """A line of the build's progress (pip shows it with -v)."""
    print(f"deathstacks: {message}", file=sys.stderr, flush=True)


def check_tools() -> None:
    """Fails, saying what is missing, without Go or a C compiler."""
    if shutil.which("go") is None:
        raise SystemExit("deathstacks: building the shared library needs Go 1.26 or later on the PATH "
                         "(https://go.dev/dl/); or set DEATHSTACKS_PREBUILT to a libdeathstacks.so built before")
    cc, cgo = subprocess.run(["go", "env", "CC", "CGO_ENABLED"], cwd=ROOT, check=True, capture_output=True,
                             text=True).stdout.split("\n")[:2]
    words = shlex.split(cc)
    if not words or shutil.which(words[0]) is None:
        raise SystemExit(f"deathstacks: building the shared library needs a C compiler for cgo, and {cc or 'gcc'!r} "
                         "is not on the PATH: install gcc or clang (Debian: apt-get install gcc), or set CC to one")
    if cgo != "1":
        raise SystemExit("deathstacks: building the shared library needs cgo, and go env CGO_ENABLED is "
                         f"{cgo!r}: unset CGO_ENABLED or set it to 1")


class BuildWithGo(build_py):
    """build_py, then the Go shared library and the license into the built
    package."""

    def run(self):
        super().run()
        package = os.path.join(os.path.abspath(self.build_lib), "deathstacks")
        os.makedirs(package, exist_ok=True)
        # The repository's license, which a copy of env/python alone (built
        # with DEATHSTACKS_PREBUILT) lacks.
        if os.path.isfile(os.path.join(ROOT, "LICENSE")):
            shutil.copyfile(os.path.join(ROOT, "LICENSE"), os.path.join(package, "LICENSE"))
        out = os.path.join(package, LIBRARY)
        prebuilt = os.environ.get("DEATHSTACKS_PREBUILT")
        if prebuilt:
            shutil.copyfile(prebuilt, out)
            return
        if not os.path.isdir(os.path.join(ROOT, "cmd", "libdeathstacks")):
            raise SystemExit(f"deathstacks: no Go sources at {ROOT}: build from the repository's env/python")
        check_tools()
        say("compiling the Go shared library (go build -buildmode=c-shared ./cmd/libdeathstacks): "
            "about a minute, more on the first build, which downloads the Go modules")
        # Built beside its C header, which the package does not need.
        with tempfile.TemporaryDirectory() as tmp:
            built = os.path.join(tmp, LIBRARY)
            subprocess.check_call(["go", "build", "-buildmode=c-shared", "-o", built, "./cmd/libdeathstacks"],
                                  cwd=ROOT)
            shutil.copyfile(built, out)
        say(f"built {out}")


class BinaryDistribution(Distribution):
    """A distribution with a native library: its wheel is not pure Python,
    it installs into platlib and names the platform."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """The platform's wheel for any Python 3: the library is loaded with
    ctypes, so no CPython ABI tag applies."""

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


setup(cmdclass={"build_py": BuildWithGo, "bdist_wheel": PlatformWheel}, distclass=BinaryDistribution)
