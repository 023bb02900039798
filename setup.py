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

Compiled engines: a wheel build (``pip install .``, ``pip wheel .``, ``python -m build``)
compiles the modules in :data:`COMPILED_MODULES` with mypyc (the bridge, canasta and robber
rummy engines' hot paths: about twice bridge's decisions per second, 1.5-1.8 times
canasta's and rummy's actions per second) when it can: mypyc is a build requirement
(``mypy`` in ``[build-system] requires``; ``--no-build-isolation`` uses the environment's),
and a C compiler must work (:func:`c_compiler_problem` compiles and links a module that
includes ``Python.h`` with the compiler ``build_ext`` would use: ``CC``, sysconfig). The
build says which, in one line (``pip -v`` shows it): ``arena: compiled engines: bridge,
canasta, rummy`` or ``arena: pure Python engines (<why>)``; the wheel is then
platform-specific or ``py3-none-any``. The pure modules stay in the package either way
and behave identically; at run time ``arena.games.compiled()`` (the last line of ``arena
games``) lists the modules running compiled. Never in an editable install (``pip install
-e``: setuptools' ``editable_wheel``, or ``develop``): compiled modules would shadow the
sources being edited. The choice is made when ``build`` runs, so metadata and editable
builds never run mypyc; a pure build removes the extension modules an earlier compiled
build left in ``build/``. ``ARENA_COMPILE=0`` builds pure Python; ``ARENA_COMPILE=1``
forces the compiled engines in any build, ``setup.py build_ext`` alone and editable ones
included, and fails instead of falling back (``ARENA_COMPILE_OPT``, ``ARENA_COMPILE_DIR``:
:func:`mypyc_extensions`). ``tests/games/test_compiled_engines.py`` builds the wheel once
(``-O1``), checks its extension modules, runs the compiled games' tests, the replay pins
and the conformance suite against them, and checks the pure wheels (no compiler,
``ARENA_COMPILE=0``) and the editable build.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PROTO_ROOT = ROOT / "proto"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")
SDK_PACKAGE = ROOT / "clients" / "python" / "arenabot"
"""The Python bot SDK, shipped in the platform's wheel as the package ``arenabot``."""


COMPILED_MODULES = ["arena/games/bridge/state.py", "arena/games/bridge/actions.py",
                    "arena/games/bridge/cardmasks.py",
                    "arena/games/canasta/state.py", "arena/games/canasta/melds.py",
                    "arena/games/rummy/state.py", "arena/games/rummy/solver.py"]
"""Modules a wheel build compiles with mypyc where it can (paths relative to the root; the
package's ``arena.games.COMPILABLE_MODULES``): the engines' hot paths. Their value types (actions, observations) stay in modules of their own
that are never compiled, so they remain ordinary Python classes."""


COMPILE_ENV = "ARENA_COMPILE"
"""``1`` (or ``true``/``yes``) forces the compiled engines, ``0`` (``false``/``no``) the pure
ones; unset (or ``auto``) a wheel build compiles them when it can (the module docstring)."""


def compile_mode(environ: Mapping[str, str] = os.environ) -> str:
    """``"force"``, ``"off"`` or ``"auto"`` from :data:`COMPILE_ENV`.

    :raises SystemExit: for any other value (a typo must not pick a mode silently).
    """
    value = environ.get(COMPILE_ENV, "").strip().lower()
    if value in ("1", "true", "yes"):
        return "force"
    if value in ("0", "false", "no"):
        return "off"
    if value in ("", "auto"):
        return "auto"
    raise SystemExit(f"{COMPILE_ENV}={value!r}: use 1 (compile), 0 (pure Python) or leave it unset (auto)")


def compiled_games(modules: list[str] = COMPILED_MODULES) -> list[str]:
    """The games whose engines :data:`COMPILED_MODULES` holds (``arena/games/<game>/...``), sorted."""
    return sorted({Path(m).parts[2] for m in modules})


def c_compiler_problem() -> str | None:
    """Why no C extension can be built here, or ``None``: the compiler setuptools would use
    (``CC`` and sysconfig's flags, as ``build_ext`` sets it up) compiles and links a tiny
    module that includes ``Python.h`` (so the Python headers are checked too)."""
    import tempfile

    import setuptools  # noqa: F401  (its distutils, the one build_ext uses)
    from setuptools._distutils import ccompiler, errors, sysconfig

    try:
        cc = ccompiler.new_compiler()
        sysconfig.customize_compiler(cc)
        with tempfile.TemporaryDirectory(prefix="arena-cc-") as tmp:
            src = Path(tmp) / "probe.c"
            src.write_text("#include <Python.h>\nint arena_probe(void) { return Py_IsInitialized(); }\n")
            objects = cc.compile([str(src)], output_dir=tmp, include_dirs=[sysconfig.get_python_inc()])
            cc.link_shared_object(objects, str(Path(tmp) / "probe.so"))
    except (errors.DistutilsError, errors.CCompilerError, OSError) as exc:
        return f"no working C compiler: {str(exc).strip() or type(exc).__name__}"
    return None


def mypyc_extensions() -> list:  # type: ignore[type-arg]
    """mypyc's extensions of :data:`COMPILED_MODULES` (runs mypy and writes their C sources).

    ``ARENA_COMPILE_DIR`` sets where mypyc writes its C sources (default ``build``); an
    absolute directory only for ``setup.py build_ext`` alone (as the test and the
    benchmark run it): wheel and install builds need the default, a relative path.
    ``ARENA_COMPILE_OPT`` is the C compiler's optimisation level (default ``3``; the
    tests build with ``1``, half the compiler's time, the same code paths).

    :raises ImportError: without mypyc; :raises SystemExit: if mypyc fails (its way).
    """
    from mypyc.build import mypycify

    return list(mypycify(COMPILED_MODULES, opt_level=os.environ.get("ARENA_COMPILE_OPT", "3"),
                         target_dir=os.environ.get("ARENA_COMPILE_DIR", "build")))


def compiled_extensions() -> list:  # type: ignore[type-arg]
    """The extensions ``setup()`` starts with: :func:`mypyc_extensions` if forced
    (``ARENA_COMPILE=1``: any build, ``build_ext`` alone and editable installs too), else
    ``[]``: the automatic choice is made when a build runs (``ArenaBuild``), not here, so
    that metadata and editable builds never run mypyc."""
    if compile_mode() != "force":
        return []
    try:
        return mypyc_extensions()
    except ImportError:
        raise SystemExit(f"{COMPILE_ENV}=1 but mypyc is not installed (pip install 'mypy>=2.4')") from None


def stale_extensions(build_lib: Path) -> list[Path]:
    """Extension modules of :data:`COMPILED_MODULES` (and mypyc's shared library) that an
    earlier compiled build left in ``build_lib``: a pure build removes them, as its
    install step would otherwise copy them into the package."""
    if not build_lib.is_dir():
        return []
    stems = {m.removesuffix(".py") for m in COMPILED_MODULES}
    return sorted(p for p in build_lib.rglob("*") if p.suffix in (".so", ".pyd") and p.is_file()
                  and (str(p.relative_to(build_lib).parent / p.name.split(".")[0]) in stems
                       or (p.parent == build_lib and p.name.split(".")[0].endswith("__mypyc"))))


def report(line: str) -> None:
    """The build's one line about the engines (stderr: pip shows it with ``-v``)."""
    print(f"arena: {line}", file=sys.stderr, flush=True)


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
    from setuptools.command.bdist_wheel import bdist_wheel
    from setuptools.command.build import build
    from setuptools.command.build_ext import build_ext
    from setuptools.command.build_py import build_py
    from setuptools.dist import Distribution

    MODE = compile_mode()
    EDITABLE_COMMANDS = ("editable_wheel", "develop")  # PEP 660 (pip install -e), the legacy one

    def editable(dist: Distribution) -> bool:
        """An editable install is being built: its command is running (pip's ``install -e``
        runs setuptools' ``editable_wheel``) or named on the command line."""
        return (any(name in dist.command_obj for name in EDITABLE_COMMANDS)
                or any(arg in EDITABLE_COMMANDS for arg in sys.argv[1:]))

    def report_once(dist: Distribution, line: str) -> None:
        if not getattr(dist, "_arena_reported", False):
            dist._arena_reported = True  # type: ignore[attr-defined]
            report(line)

    def choose_engines(dist: Distribution) -> None:
        """The automatic choice, once per build: mypyc's extensions when mypyc and a
        working C compiler are there, else none and the line that says why."""
        if getattr(dist, "_arena_chosen", False):
            return
        dist._arena_chosen = True  # type: ignore[attr-defined]
        if MODE == "force":
            return  # built by setup(); build_ext says how it went
        if MODE == "off":
            return report_once(dist, f"pure Python engines ({COMPILE_ENV}=0)")
        if editable(dist):
            return report_once(dist, "pure Python engines (editable install: compiled modules "
                                     "would shadow the sources)")
        try:
            import mypyc  # noqa: F401
        except ImportError:
            return report_once(dist, "pure Python engines (mypyc is not installed)")
        problem = c_compiler_problem()
        if problem:
            return report_once(dist, f"pure Python engines ({problem})")
        try:
            extensions = mypyc_extensions()
        except SystemExit as exc:  # mypy's type errors (printed above) exit
            why = f"exit {exc.code}, its errors are above" if isinstance(exc.code, int) else exc.code
            return report_once(dist, f"pure Python engines (mypyc failed: {why})")
        except Exception as exc:  # noqa: BLE001  (anything else: pure Python)
            return report_once(dist, f"pure Python engines (mypyc failed: {exc})")
        dist.ext_modules = extensions
        dist.get_command_obj("build_ext").extensions = extensions

    class ArenaBuild(build):
        """``build`` that chooses the engines (compiled or pure) before its sub-commands."""

        def finalize_options(self) -> None:
            super().finalize_options()
            if MODE != "force" and editable(self.distribution):  # editable_wheel runs the
                choose_engines(self.distribution)  # sub-commands without build.run

        def run(self) -> None:
            choose_engines(self.distribution)
            if not self.distribution.has_ext_modules():  # an earlier compiled build's
                for lib in {self.build_purelib, self.build_platlib}:  # must not ship
                    for path in stale_extensions(Path(lib)):
                        path.unlink()
            super().run()

    class ArenaBdistWheel(bdist_wheel):
        """``bdist_wheel`` whose tag follows the engines built: the build runs first, then
        the wheel is platform-specific only if extension modules were built."""

        def run(self) -> None:
            if not self.skip_build:
                self.run_command("build")
            dist = self.distribution
            self.root_is_pure = not (dist.has_ext_modules() or dist.has_c_libraries())
            super().run()  # the build has run: not again

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

    class OptionalBuildExt(build_ext):
        """``build_ext`` that says which engines were built; unless forced, a failure leaves
        a pure-Python package (nothing half-built)."""

        def run(self) -> None:
            if not self.extensions:
                return super().run()
            try:
                super().run()
            except Exception as exc:  # noqa: BLE001  (a compile error, ...)
                if MODE == "force":
                    raise
                out = ROOT if self.inplace else Path(self.build_lib)
                for ext in self.extensions:  # an extension built before the failure
                    built = out / self.get_ext_filename(ext.name)
                    if built.exists():
                        built.unlink()
                self.extensions = self.distribution.ext_modules = []
                report_once(self.distribution, f"pure Python engines (compiling failed: {exc})")
                return
            report_once(self.distribution, f"compiled engines: {', '.join(compiled_games())}")

    setup(cmdclass={"build": ArenaBuild, "bdist_wheel": ArenaBdistWheel, "build_py": BuildPyWithProtos,
                    "build_ext": OptionalBuildExt},
          ext_modules=compiled_extensions())
