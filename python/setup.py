"""The package with the extension already built: build/native/_llmmem*.so (scripts/build
native), or the one in the folder LLMMEM_BUILD names, is copied into it. Nothing is compiled
and nothing is fetched here, so the install works offline with --no-build-isolation."""
import glob
import importlib.machinery
import os
import shutil

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithExtension(build_py):
    def run(self):
        super().run()
        folder = os.environ.get("LLMMEM_BUILD") or os.path.join(HERE, "..", "build", "native")
        found = [p for s in importlib.machinery.EXTENSION_SUFFIXES for p in glob.glob(os.path.join(folder, "_llmmem" + s))]
        if not found:
            raise SystemExit("llmmem: no _llmmem extension for this Python in %s: run scripts/build native first "
                             "(or set LLMMEM_BUILD)" % os.path.abspath(folder))
        shutil.copy2(found[0], os.path.join(self.build_lib, "llmmem"))


class BinaryDistribution(Distribution):
    """A wheel tagged for this Python and platform: it holds a compiled module."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPyWithExtension}, distclass=BinaryDistribution)
