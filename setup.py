"""`pip install .`: the `kbt` package of python/kbt with its native module
`_kbt`, which kbt's CMake builds (docs/python.md "Installing").

The build directory is $KBT_BUILD_DIR, else build-pip in this tree, kept
between installs so that a second install only relinks. A directory that CMake
has configured already (say the README's `build`) is only built, with the
options it has; a new one is configured with -DKBT_ENABLE_PYTHON=ON, without
tests and benchmarks, for this interpreter, plus $KBT_CMAKE_ARGS (e.g.
"-DKokkos_ROOT=/opt/kokkos -DCMAKE_CXX_COMPILER=.../nvcc_wrapper")."""

import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(os.environ.get("KBT_BUILD_DIR") or os.path.join(SOURCE, "build-pip"))


def version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(kbt VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = BUILD
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", SOURCE, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                            "-DKBT_ENABLE_PYTHON=ON", "-DKBT_ENABLE_TESTS=OFF", "-DKBT_ENABLE_BENCHMARKS=OFF",
                            "-DPYTHON_EXECUTABLE=" + sys.executable,
                            *shlex.split(os.environ.get("KBT_CMAKE_ARGS", ""))], check=True)
        subprocess.run(["cmake", "--build", build, "--target", "kbt_python"], check=True)
        package = os.path.join(build, "python", "kbt")
        native = [n for n in os.listdir(package) if n.startswith("_kbt.") and n.endswith(".so")]
        if len(native) != 1:
            raise RuntimeError("kbt: expected one _kbt module in %s, found %s" % (package, native))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package, native[0]), target)


# setuptools writes its metadata (egg_base) before build_ext runs CMake, and
# refuses a folder that does not exist: on a fresh clone nothing has made BUILD.
os.makedirs(BUILD, exist_ok=True)

setup(
    version=version(),
    packages=["kbt"],
    package_dir={"kbt": "python/kbt"},
    ext_modules=[Extension("kbt._kbt", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    # setuptools' own staging beside CMake's, not in ./build (the README's build).
    options={"build": {"build_base": os.path.join(BUILD, "setuptools")}, "egg_info": {"egg_base": BUILD}},
)
