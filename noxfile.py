"""The one entry point: `nox` runs every default session; see README.md."""

from __future__ import annotations

import os
import shutil

import nox

PYPROJECT = nox.project.load_toml("pyproject.toml")
PYTHONS = nox.project.python_versions(PYPROJECT)
"""The supported Pythons, from the `Programming Language :: Python :: 3.X` classifiers."""

nox.options.sessions = [
    "lint",
    "typecheck",
    "tests",
    "tests-compiled",
    "coverage",
    "roundtrip",
    "typing",
    "oracle",
    "build",
]
nox.options.error_on_missing_interpreters = bool(os.environ.get("CI"))


def group(name: str) -> list[str]:
    """The requirements of one dependency group of pyproject.toml."""
    return list(nox.project.dependency_groups(PYPROJECT, name))


def chromium(session: nox.Session) -> None:
    """Debian's Chromium for the browser test of rendered pages (tests/test_render_browser.py),
    installed through apt-get when it is missing; the test fails under CI without it."""
    if shutil.which("chromium") is not None or shutil.which("apt-get") is None:
        return
    session.run("apt-get", "update", "--quiet", external=True)
    session.run("apt-get", "install", "--yes", "--quiet", "--no-install-recommends", "chromium", external=True)


def release(session: nox.Session) -> None:
    """With `CI` set, remove the session's virtualenv (and its temporary files) once it has
    passed: the run then needs the disk of its largest session (about 0.45 GB), not of all
    of them (2.8 GB). A failed session keeps its virtualenv, to look into."""
    if os.environ.get("CI"):
        shutil.rmtree(session.virtualenv.location, ignore_errors=True)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff: lint rules and formatting."""
    session.install(*group("lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    release(session)


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy in strict mode over src, tests and noxfile.py."""
    session.install(".[schema,dask,parquet]", *group("typecheck"))
    session.run("mypy")
    release(session)


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """pytest, the property suite included, against the installed package (with its extras:
    the schema checks and the Dask cluster test run)."""
    session.install(".[schema,dask,parquet]", *group("test"))
    chromium(session)
    session.run("pytest", "--ignore=tests/roundtrip", *session.posargs)
    release(session)


COMPILED: list[str] = [
    "message_ir._fast_path",
    "message_ir._shape",
    "message_ir._linkage",
    "message_ir._stream_linkage",
    "message_ir._paths",
    "message_ir._field_rules",
    "message_ir._untyped",
    "message_ir.adapters._build",
    "message_ir.adapters._calls",
    "message_ir.adapters._chat",
    "message_ir.adapters._first_pass",
    "message_ir.adapters._json",
    "message_ir.adapters._load_state",
    "message_ir.adapters._log",
    "message_ir.adapters._pairing",
    "message_ir.adapters._records",
    "message_ir.adapters._writing",
]
"""The modules the opt-in mypyc build compiles (`[tool.hatch.build.targets.wheel.hooks.mypyc]`)."""


def compiled_wheel(session: nox.Session) -> str:
    """Build the opt-in compiled wheel (mypyc) from the sdist, so that no extension module
    lands in src/ (an editable install would import it); returns the wheel's path."""
    dist = f"{session.create_tmp()}/compiled"
    session.install(*group("build"))
    session.run("python", "-m", "build", "--sdist", "--outdir", dist)
    sdists = [name for name in os.listdir(dist) if name.endswith(".tar.gz")]
    session.run(
        "python",
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--wheel-dir",
        dist,
        f"{dist}/{sdists[0]}",
        env={"HATCH_BUILD_HOOKS_ENABLE": "1"},
    )
    wheels = [name for name in os.listdir(dist) if name.endswith(".whl")]
    return f"{dist}/{wheels[0]}"


@nox.session(python="3.11", name="tests-compiled")
def tests_compiled(session: nox.Session) -> None:
    """The opt-in compiled build: build the wheel with mypyc from the sdist (so that no extension
    module lands in src/), install it, check that the compiled modules are extension modules,
    and run the whole suite, the property suite included, against it."""
    session.install(f"{compiled_wheel(session)}[schema,dask,parquet]", *group("test"))
    check = "; ".join(f"import {name}; assert {name}.__file__.endswith('.so'), {name}.__file__" for name in COMPILED)
    session.run("python", "-c", check)
    chromium(session)
    session.run("pytest", *session.posargs)
    release(session)


@nox.session(python="3.11")
def coverage(session: nox.Session) -> None:
    """Branch coverage of the package over the whole suite, the command line's child processes
    included; fails under the `fail_under` of pyproject.toml (95)."""
    session.install("-e", ".[schema,dask,parquet]", *group("test"), *group("coverage"))
    chromium(session)
    session.run("coverage", "erase")
    session.run(
        "coverage",
        "run",
        "-m",
        "pytest",
        "--ignore=tests/roundtrip",
        *session.posargs,
        env={"HYPOTHESIS_PROFILE": "coverage"},
    )
    session.run("coverage", "combine", "--quiet")
    session.run("coverage", "report", "--precision=1")
    release(session)


@nox.session(python="3.11")
def roundtrip(session: nox.Session) -> None:
    """Every example and a generated corpus through encode, json.loads, validate and decode."""
    session.install(".", *group("test"))
    session.run("pytest", "tests/roundtrip", *session.posargs)
    release(session)


@nox.session(python="3.11")
def oracle(session: nox.Session) -> None:
    """The providers' SDKs (openai-python, anthropic-sdk-python) as the oracle of stream
    assembly on the recorded streams; installed here only, never a dependency."""
    session.install(".", *group("oracle"))
    session.run("pytest", "tests/test_stream_oracle.py", *session.posargs)
    release(session)


@nox.session(python="3.11")
def typing(session: nox.Session) -> None:
    """The typing cases of tests/typing, checked by mypy (for the oldest and the newest supported
    Python) and basedpyright; never run."""
    session.install(".", *group("typing"))
    for version in (PYTHONS[0], PYTHONS[-1]):
        session.run("mypy", "--config-file", "tests/typing/mypy.ini", "--python-version", version, "tests/typing")
    session.run("basedpyright", "--project", "tests/typing/pyrightconfig.json")
    release(session)


@nox.session(python="3.11")
def build(session: nox.Session) -> None:
    """Build the sdist and the wheel, check them with twine, and import the wheel in a fresh venv."""
    session.install(*group("build"))
    dist = session.create_tmp() + "/dist"
    session.run("python", "-m", "build", "--outdir", dist)
    session.run("twine", "check", "--strict", f"{dist}/*")
    venv = session.create_tmp() + "/fresh"
    session.run("python", "-m", "venv", "--clear", venv)
    wheels = [name for name in os.listdir(dist) if name.endswith(".whl")]
    session.run(f"{venv}/bin/python", "-m", "pip", "install", "--quiet", f"{dist}/{wheels[0]}", external=True)
    session.run(
        f"{venv}/bin/python",
        "-c",
        "import message_ir, message_ir.adapters; print('message-ir', message_ir.__version__, 'imports')",
        external=True,
    )
    session.run(f"{venv}/bin/message-ir", "validate", "--example", "valid-round", external=True)
    release(session)


@nox.session(python="3.11", default=False)
def bench(session: nox.Session) -> None:
    """The benchmark of benchmarks/ (not in the default run): ratios against msgspec and pydantic,
    for the pure build and, side by side, the compiled one (built into a second venv); the
    adapters' table in each build; and what `redact` finds beside detect-secrets."""
    wheel = compiled_wheel(session)
    venv = f"{session.create_tmp()}/compiled-venv"
    session.run("python", "-m", "venv", "--clear", venv)
    session.run(f"{venv}/bin/python", "-m", "pip", "install", "--quiet", wheel, *group("bench"), external=True)
    session.install(".", *group("bench"))
    session.run("python", "benchmarks/bench_boundary.py", "--compiled-python", f"{venv}/bin/python", *session.posargs)
    session.run("python", "benchmarks/bench_adapters.py")
    session.run(f"{venv}/bin/python", "benchmarks/bench_adapters.py", external=True)
    session.run("python", "benchmarks/compare_redact.py")


@nox.session(python="3.11", default=False)
def fuzz(session: nox.Session) -> None:
    """The deep property run, then atheris on the boundary for a bounded time (`-- SECONDS`)."""
    seconds = session.posargs[0] if session.posargs else "120"
    session.install(".", *group("fuzz"))
    session.run("pytest", "tests/property", "-p", "no:cacheprovider", env={"HYPOTHESIS_PROFILE": "deep"})
    work = session.create_tmp()
    session.run(
        "python",
        "fuzz/fuzz_boundary.py",
        f"-max_total_time={seconds}",
        "-timeout=10",
        "-rss_limit_mb=4096",
        f"-artifact_prefix={work}/",
        f"{work}",
        "fuzz/corpus",
    )
