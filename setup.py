"""Build step: generate the Python gRPC code from ``proto/`` (CONVENTIONS rule 10).

Everything else about the package is in ``pyproject.toml``; this file only adds
a ``build_py`` step (the Feast pattern) that runs ``grpc_tools.protoc`` over
every ``proto/arena/<api>/v1/*.proto`` into ``arena/<api>/v1/`` before the
modules are collected. ``pip install .``, ``pip wheel .`` and editable installs
(``pip install -e .``, which also runs ``build_py``) all regenerate, so the
generated ``*_pb2.py``, ``*_pb2.pyi`` and ``*_pb2_grpc.py`` (gitignored) always
match ``proto/``. grpcio-tools is pinned in ``[build-system] requires``.

The wheel also carries the Python bot SDK, ``clients/python/arenabot`` (pure Python;
its wire code falls back to the platform's ``arena.bot.v1``), so that ``pip install .``
gives the README's "Writing a bot" everything it imports. An editable install does
not: there, ``pip install -e clients/python`` (or ``PYTHONPATH=clients/python``).

By hand (same code, no install): ``python setup.py build_py``, or
``python -c "import runpy; runpy.run_path('setup.py', run_name='codegen')['generate_protos']()"``.

Compiled engines (optional): with ``ARENA_COMPILE=1`` the modules in
:data:`COMPILED_MODULES` are also compiled with mypyc (the bridge, canasta and robber
rummy engines' hot paths: about twice bridge's decisions per second, 1.5-1.8 times
canasta's and rummy's actions per second), e.g.
``ARENA_COMPILE=1 pip install --no-build-isolation .`` in an environment that has mypy
(the ``test`` extra). The pure-Python modules stay in the package and behave
identically; without the variable, without mypyc, or when compiling fails (no C
compiler), the build warns and the package is pure Python. Do not combine it with an
editable install: the compiled modules would then shadow the sources being edited.
``tests/games/test_compiled_engines.py`` builds them the same way (``build_ext`` with
``ARENA_COMPILE=1``, once) and runs the compiled games' tests, the replay pins and the
conformance suite against them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PROTO_ROOT = ROOT / "proto"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")
SDK_PACKAGE = ROOT / "clients" / "python" / "arenabot"
"""The Python bot SDK, shipped in the platform's wheel as the package ``arenabot``."""


COMPILED_MODULES = ["arena/games/bridge/state.py", "arena/games/bridge/calls.py",
                    "arena/games/bridge/cardmasks.py",
                    "arena/games/canasta/state.py",
                    "arena/games/rummy/game.py", "arena/games/rummy/solver.py"]
"""Modules compiled with mypyc when ``ARENA_COMPILE=1`` (paths relative to the root): the
engines' hot paths. Their value types (actions, observations) stay in modules of their own
that are never compiled, so they remain ordinary Python classes."""


def compiled_extensions() -> list:  # type: ignore[type-arg]
    """mypyc extensions of :data:`COMPILED_MODULES`, or ``[]`` (pure Python) with a warning.

    ``ARENA_COMPILE_DIR`` sets where mypyc writes its C sources (default ``build``); an
    absolute directory only for ``setup.py build_ext`` alone (as the test and the
    benchmark run it): wheel and install builds need the default, a relative path.
    ``ARENA_COMPILE_OPT`` is the C compiler's optimisation level (default ``3``; the
    test builds with ``1``, half the compiler's time, the same code paths).
    """
    if os.environ.get("ARENA_COMPILE", "").lower() not in ("1", "true", "yes"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("warning: ARENA_COMPILE=1 but mypyc is not installed; building pure Python")
        return []
    try:
        return list(mypycify(COMPILED_MODULES, opt_level=os.environ.get("ARENA_COMPILE_OPT", "3"),
                             target_dir=os.environ.get("ARENA_COMPILE_DIR", "build")))
    except Exception as exc:  # noqa: BLE001  (any failure: fall back to pure Python)
        print(f"warning: mypyc failed ({exc}); building pure Python")
        return []


def sdk_files(sdk: Path = SDK_PACKAGE) -> list[Path]:
    """The SDK's modules (not its generated ``_wire`` copy nor caches), relative to ``sdk``."""
    if not sdk.is_dir():
        return []
    return sorted(p.relative_to(sdk) for p in sdk.rglob("*")
                  if p.is_file() and p.suffix in (".py", ".typed")
                  and "_wire" not in p.relative_to(sdk).parts and "__pycache__" not in p.parts)


def proto_files(proto_root: Path = PROTO_ROOT) -> list[Path]:
    """Every ``.proto`` under ``proto_root/arena``, sorted."""
    return sorted((proto_root / "arena").rglob("*.proto"))


def generate_protos(out_root: Path = ROOT, proto_root: Path = PROTO_ROOT) -> list[Path]:
    """Generate Python modules for every proto into ``out_root`` (mirroring packages).

    Stale generated files in the target directories are removed first, so a
    deleted or renamed ``.proto`` leaves nothing behind. Returns the written files.

    :raises RuntimeError: if protoc reports an error.
    """
    import grpc_tools
    from grpc_tools import protoc

    files = proto_files(proto_root)
    if not files:
        raise RuntimeError(f"no .proto files under {proto_root}")
    out_dirs = {out_root / f.parent.relative_to(proto_root) for f in files}
    for d in out_dirs:
        d.mkdir(parents=True, exist_ok=True)
        for old in d.iterdir():
            if old.name.endswith(GENERATED_SUFFIXES):
                old.unlink()
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        *(str(f.relative_to(proto_root)) for f in files),
    ]
    cwd = os.getcwd()
    try:  # protoc resolves the relative file names against the include path
        os.chdir(proto_root)
        code = protoc.main(args)
    finally:
        os.chdir(cwd)
    if code != 0:
        raise RuntimeError(f"protoc failed with exit code {code}: {' '.join(args)}")
    return sorted(p for d in out_dirs for p in d.iterdir() if p.name.endswith(GENERATED_SUFFIXES))


if __name__ == "__main__":
    from setuptools import setup
    from setuptools.command.build_py import build_py

    class BuildPyWithProtos(build_py):
        """``build_py`` that first generates the gRPC modules into the source tree."""

        def run(self) -> None:
            generated = generate_protos()
            super().run()
            if not getattr(self, "editable_mode", False):  # ship the stubs in wheels
                for path in generated:
                    if path.suffix == ".pyi":
                        target = Path(self.build_lib) / path.relative_to(ROOT)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(path, target)
                for rel in sdk_files():  # and the Python bot SDK
                    target = Path(self.build_lib) / "arenabot" / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(SDK_PACKAGE / rel, target)

    from setuptools.command.build_ext import build_ext

    class OptionalBuildExt(build_ext):
        """``build_ext`` whose failure leaves a pure-Python package (nothing half-built)."""

        def run(self) -> None:
            try:
                super().run()
            except Exception as exc:  # noqa: BLE001  (no compiler, a compile error, ...)
                print(f"warning: compiling the engines failed ({exc}); the package is pure Python")
                out = ROOT if self.inplace else Path(self.build_lib)
                for ext in self.extensions:  # an extension built before the failure
                    built = out / self.get_ext_filename(ext.name)
                    if built.exists():
                        built.unlink()

    setup(cmdclass={"build_py": BuildPyWithProtos, "build_ext": OptionalBuildExt},
          ext_modules=compiled_extensions())
