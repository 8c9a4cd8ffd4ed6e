"""The native solver kernel (core/_kernel.c), built by ``pip install`` beside the pure-Python project that
pyproject.toml describes. ``optional``: where no C compiler is present the install still succeeds and the bot runs
the pure solver (core/solver.py says which runs)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("core._kernel", ["core/_kernel.c"], optional=True,
                             extra_compile_args=["-O2", "-std=c11"])])
