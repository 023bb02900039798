"""The deployment files agree with the code: ``deploy/compose.yaml`` (validated by
``docker-compose config``, Debian's v1, no engine needed), the Kubernetes manifests
in ``deploy/k8s/`` (parsed with PyYAML) and ``deploy/Dockerfile``.

Checked: one image for every arena process; every command is a real ``arena``
subcommand with real options, ``python -m arena.dashboard`` with real options, or
``celery -A workers.celery worker|flower``; ports agree between the commands, the
``ARENA_*`` variables, the published ports, Services and probes; every ``ARENA_*``
variable is one of :mod:`arena.config` (and every ``ARENA_*`` variable the code reads
is there too, with the same default); secrets are placeholders or come from the
environment; the Dockerfile copies files that exist and runs what the package provides.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import typer.main
import yaml

from arena.cli import app as cli_app
from arena.config import ENV, Settings

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
ARENA_SERVICES = {"gateway", "dashboard", "worker", "flower"}
HELPER_ENV = {"ARENA_DB_PASSWORD"}
"""Deployment-only: substituted into ARENA_STORE_URL, read by no code (see arena.config)."""
KNOWN_ENV = set(ENV.values())
PLACEHOLDERS = {"ARENA_DB_PASSWORD": "placeholder-db-password",
                "ARENA_OPERATOR_TOKEN": "placeholder-operator-token"}
DEFAULT_ENTRYPOINT = ["arena"]


# -- command checks ------------------------------------------------------------------

def _check_arena(args: list[str]) -> str:
    """Parse ``arena ARGS`` with the real CLI (unknown commands/options raise)."""
    cmd: Any = typer.main.get_command(cli_app)  # typer >= 0.20 vendors click: duck-type groups
    rest = list(args)
    path = []
    while hasattr(cmd, "commands"):
        assert rest, f"arena {' '.join(args)}: no subcommand"
        name = rest.pop(0)
        sub = cmd.commands.get(name)
        assert sub is not None, f"`arena {name}` is not an arena command ({' '.join(args)})"
        path.append(name)
        cmd = sub
    assert path, "no arena subcommand"
    ctx = cmd.make_context("arena " + " ".join(path), rest)  # raises on unknown options
    assert ctx is not None
    return " ".join(path)


_dashboard_help: str | None = None


def _check_dashboard(args: list[str]) -> None:
    global _dashboard_help
    if _dashboard_help is None:
        out = subprocess.run([sys.executable, "-m", "arena.dashboard", "--help"], capture_output=True,
                             text=True, timeout=60, cwd=REPO)
        assert out.returncode == 0, out.stderr
        _dashboard_help = out.stdout
    for a in args:
        if a.startswith("-"):
            assert re.search(rf"(^|\s|,){re.escape(a.split('=')[0])}\b", _dashboard_help), \
                f"python -m arena.dashboard has no option {a}"


def _check_celery(args: list[str]) -> str:
    assert args[:2] == ["-A", "workers.celery"], f"celery must run the arena app: {args}"
    sub = args[2]
    if sub == "worker":
        from celery.bin.worker import worker

        opts = {o for p in worker.params for o in p.opts + p.secondary_opts}
        for a in args[3:]:
            if a.startswith("-"):
                assert a.split("=")[0] in opts, f"celery worker has no option {a}"
    elif sub == "flower":
        for a in args[3:]:
            assert re.fullmatch(r"--(port|address|basic_auth|url_prefix)=\S+", a), f"flower option {a}"
    else:
        pytest.fail(f"unexpected celery subcommand {sub}")
    return sub


def check_command(argv: list[str]) -> tuple[str, list[str]]:
    """Validate one container command; returns (kind, args)."""
    if argv[0] == "arena":
        return "arena " + _check_arena(argv[1:]), argv[1:]
    if argv[:3] == ["python", "-m", "arena.dashboard"]:
        _check_dashboard(argv[3:])
        return "dashboard", argv[3:]
    if argv[0] == "celery":
        return "celery " + _check_celery(argv[1:]), argv[1:]
    pytest.fail(f"unexpected command {argv}")


def option(args: list[str], name: str) -> str:
    for i, a in enumerate(args):
        if a == name:
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    raise AssertionError(f"{name} not in {args}")


def check_env(env: dict[str, str], where: str) -> Settings:
    for name in env:
        if name.startswith("ARENA_"):
            assert name in KNOWN_ENV | HELPER_ENV, f"{where}: {name} is not a variable of arena.config"
    return Settings.from_env({k: str(v) for k, v in env.items()})


# -- the code's own reads of ARENA_* -------------------------------------------------

READ = re.compile(r"""(?:os\.environ\.get|os\.getenv)\(\s*["'](ARENA_\w+)["']\s*(?:,\s*["']([^"']*)["'])?""")
ENVVAR = re.compile(r"""envvar\s*=\s*["'](ARENA_\w+)["']""")


def test_config_names_every_variable_the_code_reads() -> None:
    defaults = {ENV[k]: v for k, v in vars(Settings()).items()}
    seen = set()
    for path in [*REPO.glob("arena/**/*.py"), *REPO.glob("workers/**/*.py")]:
        if path.name in ("config.py", "cluster.py") and path.parent.name == "arena":
            continue
        text = path.read_text(encoding="utf-8")
        for m in READ.finditer(text):
            name, default = m.group(1), m.group(2)
            seen.add(name)
            assert name in KNOWN_ENV, f"{path.relative_to(REPO)} reads {name}; add it to arena.config"
            if default is not None:
                assert str(defaults[name]) == default, \
                    f"{path.relative_to(REPO)}: {name} defaults to {default!r}, arena.config to {defaults[name]!r}"
        for m in ENVVAR.finditer(text):
            seen.add(m.group(1))
            assert m.group(1) in KNOWN_ENV, f"{path.relative_to(REPO)} reads {m.group(1)}"
    assert {"ARENA_STORE_URL", "ARENA_REDIS_URL", "ARENA_OPERATOR_TOKEN"} <= seen


def test_settings_from_env() -> None:
    s = Settings.from_env({})
    assert s == Settings()
    assert (s.gateway_port, s.dashboard_port) == (50051, 8080)
    s = Settings.from_env({"ARENA_GATEWAY_ADDRESS": "0.0.0.0:6000", "ARENA_VISIBILITY_TIMEOUT": "60",
                           "ARENA_OPERATOR_TOKEN": "tok"})
    assert (s.gateway_host, s.gateway_port, s.visibility_timeout) == ("0.0.0.0", 6000, 60)
    assert Settings.from_env(s.to_env()) == s
    assert s.redacted()["operator_token"] == "***"
    from arena.config import ConfigError

    with pytest.raises(ConfigError, match="ARENA_DASHBOARD_PORT"):
        Settings.from_env({"ARENA_DASHBOARD_PORT": "http"})
    from arena.gateway import DEFAULT_ADDRESS

    assert Settings().gateway_address == DEFAULT_ADDRESS


# -- compose -------------------------------------------------------------------------

def _compose(extra_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("docker-compose")
    if exe is None:  # .ci/run installs Debian's docker-compose: missing is a failure, not a skip
        pytest.fail("docker-compose is not installed (apt-get install docker-compose)")
    env = {k: v for k, v in os.environ.items() if k not in PLACEHOLDERS}
    env.update(extra_env)
    return subprocess.run([exe, "-f", str(DEPLOY / "compose.yaml"), "config"], capture_output=True,
                          text=True, env=env, timeout=60, cwd=REPO)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    out = _compose(PLACEHOLDERS)
    assert out.returncode == 0, out.stderr
    return yaml.safe_load(out.stdout)


def test_compose_requires_the_secrets() -> None:
    for missing in PLACEHOLDERS:
        out = _compose({k: v for k, v in PLACEHOLDERS.items() if k != missing})
        assert out.returncode != 0 and missing in out.stderr, (missing, out.stderr)
    raw = (DEPLOY / "compose.yaml").read_text()
    for value in PLACEHOLDERS.values():
        assert value not in raw


def test_compose_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"redis", "postgres", *ARENA_SERVICES} <= set(services)
    images = {services[s]["image"] for s in ARENA_SERVICES}
    assert images == {"arena:latest"}
    for s in ARENA_SERVICES:
        build = services[s]["build"]
        assert Path(build["context"]).resolve() == REPO and build["dockerfile"] == "deploy/Dockerfile"
    assert services["worker"]["deploy"]["replicas"] >= 2
    assert "container_name" not in services["worker"]  # scalable


def _published(service: dict[str, Any]) -> dict[int, int]:
    out = {}
    for p in service.get("ports", []):
        if isinstance(p, dict):
            out[int(p["target"])] = int(p["published"])
        else:  # "127.0.0.1:5555:5555/tcp"
            parts = str(p).split("/")[0].split(":")
            out[int(parts[-1])] = int(parts[-2])
    return out


def test_compose_commands_ports_env(compose: dict[str, Any]) -> None:
    services = compose["services"]
    settings = {}
    for name in ARENA_SERVICES:
        svc = services[name]
        env = {k: str(v) for k, v in svc["environment"].items()}
        settings[name] = s = check_env(env, f"compose {name}")
        argv = list(svc.get("entrypoint") or DEFAULT_ENTRYPOINT) + list(svc.get("command") or [])
        kind, args = check_command(argv)
        # everyone shares Redis and the store, by service name
        assert urlsplit(s.redis_url).hostname == "redis"
        store = urlsplit(s.store_url)
        if name != "flower":
            assert store.scheme == "postgresql+psycopg" and store.hostname == "postgres"
        if name == "gateway":
            assert kind == "arena serve"
            assert option(args, "--address") == s.gateway_address
            assert s.gateway_host == "0.0.0.0"
            assert _published(svc) == {s.gateway_port: s.gateway_port}
            assert f"127.0.0.1:{s.gateway_port}'" in svc["healthcheck"]["test"][-1]
            # bots and tournaments in the store named by ARENA_STORE_URL (password out of argv)
            assert "--db" not in args and "--store" not in args
            assert s.operator_token == PLACEHOLDERS["ARENA_OPERATOR_TOKEN"]
        else:
            assert "ARENA_OPERATOR_TOKEN" not in env  # only the gateway holds the admin token
        if name == "dashboard":
            assert kind == "dashboard"
            assert int(option(args, "--port")) == s.dashboard_port
            assert option(args, "--host") == s.dashboard_host == "0.0.0.0"
            assert "--store" not in args  # the password stays out of argv
            assert _published(svc) == {s.dashboard_port: s.dashboard_port}
            assert f"127.0.0.1:{s.dashboard_port}/healthz'" in svc["healthcheck"]["test"][-1]
        if name == "worker":
            assert kind == "arena worker"  # Celery with a conductor loop
        if name == "flower":
            assert kind == "celery flower"
            assert set(_published(svc)) == {int(option(args, "--port"))}
    assert len({s.store_url for n, s in settings.items() if n != "flower"}) == 1
    pg = services["postgres"]["environment"]
    store = urlsplit(settings["gateway"].store_url)
    assert (store.username, store.password, store.path.lstrip("/")) == (
        pg["POSTGRES_USER"], pg["POSTGRES_PASSWORD"], pg["POSTGRES_DB"])
    assert pg["POSTGRES_PASSWORD"] == PLACEHOLDERS["ARENA_DB_PASSWORD"]
    redis_cmd = services["redis"]["command"]
    assert "noeviction" in redis_cmd  # a broker must not lose messages to eviction


# -- Kubernetes ----------------------------------------------------------------------

def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.fixture(scope="module")
def k8s() -> dict[tuple[str, str], dict[str, Any]]:
    kust = _docs(K8S / "kustomization.yaml")[0]
    out: dict[tuple[str, str], dict[str, Any]] = {}
    files = [*kust["resources"], "secret.example.yaml"]
    assert sorted(files) == sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
    for f in files:
        for doc in _docs(K8S / f):
            assert {"apiVersion", "kind", "metadata"} <= set(doc), f
            key = (doc["kind"], doc["metadata"]["name"])
            assert key not in out, key
            out[key] = doc
    assert [i["name"] for i in kust["images"]] == ["arena"]
    return out


def _expand(value: str, env: dict[str, str], where: str) -> str:
    def sub(m: re.Match[str]) -> str:
        assert m.group(1) in env, f"{where}: $({m.group(1)}) is not defined in the container's env"
        return env[m.group(1)]

    return re.sub(r"\$\((\w+)\)", sub, value)


def _container_env(doc: dict[str, Any], c: dict[str, Any],
                   k8s: dict[tuple[str, str], dict[str, Any]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for src in c.get("envFrom", []):
        cm = k8s[("ConfigMap", src["configMapRef"]["name"])]
        env.update({k: str(v) for k, v in cm["data"].items()})
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = _expand(str(e["value"]), env, doc["metadata"]["name"])
        else:
            ref = e["valueFrom"]["secretKeyRef"]
            secret = k8s[("Secret", ref["name"])]
            assert ref["key"] in secret["stringData"], ref
            env[e["name"]] = f"secret-{ref['key']}"
    return env


def test_k8s_secret_is_a_placeholder(k8s: dict[tuple[str, str], dict[str, Any]]) -> None:
    secret = k8s[("Secret", "arena-secrets")]
    assert set(secret["stringData"]) == {"db-password", "operator-token"}
    assert set(secret["stringData"].values()) == {"REPLACE_ME"}
    kust = _docs(K8S / "kustomization.yaml")[0]
    assert "secret.example.yaml" not in kust["resources"]


def test_k8s_workloads(k8s: dict[tuple[str, str], dict[str, Any]], compose: dict[str, Any]) -> None:
    commands = {}
    for name in sorted(ARENA_SERVICES):
        dep = k8s[("Deployment", name)]
        pod = dep["spec"]["template"]
        assert dep["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
        (c,) = pod["spec"]["containers"]
        assert c["image"] == "arena"  # set by kustomization `images`
        env = _container_env(dep, c, k8s)
        s = check_env(env, f"k8s {name}")
        argv = [_expand(a, env, name) for a in [*(c.get("command") or DEFAULT_ENTRYPOINT), *c.get("args", [])]]
        kind, args = check_command(argv)
        commands[name] = kind
        ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
        assert urlsplit(s.redis_url).hostname == "redis" and ("Service", "redis") in k8s
        if name != "flower":
            store = urlsplit(s.store_url)
            assert store.hostname == "postgres" and ("Service", "postgres") in k8s
            assert store.password == "secret-db-password"
        if name == "gateway":
            assert option(args, "--address") == s.gateway_address and s.gateway_host == "0.0.0.0"
            assert "--db" not in args and "--store" not in args  # bots: the store of ARENA_STORE_URL
            assert ports == {"grpc": s.gateway_port}
            assert c["readinessProbe"]["grpc"]["port"] == s.gateway_port
            assert s.operator_token == "secret-operator-token"
        else:
            assert s.operator_token is None
        if name == "dashboard":
            assert int(option(args, "--port")) == s.dashboard_port and "--store" not in args
            assert ports == {"http": s.dashboard_port}
            assert c["readinessProbe"]["httpGet"]["port"] in ports
            from arena.dashboard import create_app

            routes = {getattr(r, "path", None) for r in create_app("sqlite://").routes}
            assert c["readinessProbe"]["httpGet"]["path"] in routes
        if name == "flower":
            assert ports == {"http": int(option(args, "--port"))}
        if name in ("gateway", "dashboard", "flower"):
            svc = k8s[("Service", name)]
            assert svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
            for p in svc["spec"]["ports"]:
                assert p["targetPort"] in ports or p["targetPort"] in ports.values(), (name, p)
        # the same configuration as the compose file, apart from hosts and secrets
        cs = Settings.from_env({k: str(v) for k, v in compose["services"][name]["environment"].items()})
        for field in ("gateway_address", "dashboard_host", "dashboard_port",
                      "visibility_timeout", "unacked_restore_interval", "unacked_restore_throttle",
                      "redis_url"):
            assert getattr(s, field) == getattr(cs, field), (name, field)
    assert commands == {"gateway": "arena serve", "dashboard": "dashboard", "worker": "arena worker",
                        "flower": "celery flower"}
    hpa = k8s[("HorizontalPodAutoscaler", "worker")]
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "worker"}
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    worker = k8s[("Deployment", "worker")]["spec"]["template"]["spec"]["containers"][0]
    # --concurrency matches the CPU request (one prefork process per core)
    assert int(option(worker["args"], "--concurrency")) == int(worker["resources"]["requests"]["cpu"])


def test_k8s_worker_liveness_probe_is_a_real_command() -> None:
    (dep, _) = _docs(K8S / "worker.yaml")
    probe = dep["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["exec"]["command"]
    assert probe[:2] == ["sh", "-c"]
    argv = shlex.split(probe[2].replace("exec ", "", 1))
    assert argv[:5] == ["celery", "-A", "workers.celery", "inspect", "ping"]


# -- Dockerfile ----------------------------------------------------------------------

def _instructions() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, rest = line.partition(" ")
            out.append((op.upper(), rest.strip()))
    return out


def test_dockerfile() -> None:
    ins = _instructions()
    froms = [r for op, r in ins if op == "FROM"]
    assert froms and all(f.split()[0] == "python:3.11-slim" for f in froms)
    for op, rest in ins:
        if op == "COPY" and "--from=" not in rest:
            parts = [p for p in rest.split() if not p.startswith("--")]
            for src in parts[:-1]:
                assert (REPO / src).exists(), f"COPY {src}: no such file in the repository"
    runs = " ".join(r for op, r in ins if op == "RUN")
    assert re.search(r'pip install "?\.(\[[a-z,]+\])?"?(\s|$)', runs), \
        "the image installs the package with `pip install .` (and its named extras)"
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    copied = " ".join(r for op, r in ins if op == "COPY")
    for needed in ("pyproject.toml", "setup.py", pyproject["project"]["readme"], "proto/", "arena/", "workers/"):
        assert needed in copied.split(), f"the Dockerfile does not copy {needed}"
    # the import check after the build names generated modules of real protos
    for mod in re.findall(r"arena\.(\w+)\.v1\.(\w+)_pb2", runs):
        assert (REPO / "proto" / "arena" / mod[0] / "v1" / f"{mod[1]}.proto").exists(), mod
    users = [r for op, r in ins if op == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    entry = [r for op, r in ins if op == "ENTRYPOINT"][-1]
    assert yaml.safe_load(entry) == DEFAULT_ENTRYPOINT
    assert "arena" in pyproject["project"]["scripts"]
    env = " ".join(r for op, r in ins if op == "ENV")
    assert "PYTHONPATH=/app" in env and ("WORKDIR", "/app") in ins  # workers/ importable
    exposed = {int(p) for op, r in ins if op == "EXPOSE" for p in r.split()}
    s = Settings()
    assert {s.gateway_port, s.dashboard_port, 5555} <= exposed


# -- what the image gets from `pip install .` -----------------------------------------

INDIRECT_IMPORTS = {"fastapi.templating": "jinja2"}
"""Modules that need a distribution they import lazily."""


def _top_level_imports() -> dict[str, set[str]]:
    import ast

    found: dict[str, set[str]] = {}
    for path in (REPO / "arena").rglob("*.py"):
        if "conftest" in path.name or "_pb2" in path.name:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods: list[str] = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            for m in mods:
                for prefix, extra in INDIRECT_IMPORTS.items():
                    if m == prefix or m.startswith(prefix + "."):
                        found.setdefault(extra, set()).add(str(path.relative_to(REPO)))
                top = m.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("arena", "workers"):
                    found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _image_extras() -> list[str]:
    """The extras the Dockerfile installs with the package (``pip install ".[a,b]"``)."""
    m = re.search(r'pip install "?\.\[([^\]]+)\]"?', (REPO / "deploy" / "Dockerfile").read_text())
    return [e.strip() for e in m.group(1).split(",")] if m else []


def test_package_dependencies_cover_the_imports() -> None:
    """The image installs ``[project.dependencies]``, the extras its Dockerfile names
    (``all``, ``search``) and Flower: every third-party module the package imports must come
    from one of them."""
    import importlib.metadata as md

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = _image_extras()
    assert extras == ["all", "search"], extras
    optional = project["optional-dependencies"]

    def expand(extra: str) -> list[str]:  # "arena[a,b]" in an extra names other extras
        out: list[str] = []
        for d in optional[extra]:
            m = re.fullmatch(r"arena\[([a-z,]+)\]", d)
            out += [x for e in m.group(1).split(",") for x in expand(e)] if m else [d]
        return out

    deps = list(project["dependencies"]) + [d for e in extras for d in expand(e)]
    declared = {_norm(re.split(r"[<>=!~\[ ;]", d)[0]) for d in deps}
    dists = md.packages_distributions()
    missing = {}
    for top, files in sorted(_top_level_imports().items()):
        provided = {_norm(d) for d in dists.get(top, [top])}
        if not provided & declared:
            missing[top] = sorted(files)[:3]
    assert not missing, f"imported but not in pyproject dependencies (the image lacks them): {missing}"


@pytest.mark.timeout(240)
def test_wheel_from_the_docker_context_is_complete(tmp_path: Path) -> None:
    """Build the wheel from exactly what the Dockerfile copies (as `pip install .`
    does in the image): it holds the generated gRPC code of every proto and every
    data file of the package (templates, static files, examples, migrations)."""
    import zipfile

    ctx = tmp_path / "ctx"
    ctx.mkdir()
    for op, rest in _instructions():
        if op == "COPY" and "--from=" not in rest:
            parts = [p for p in rest.split() if not p.startswith("--")]
            for src in parts[:-1]:
                if src.rstrip("/") == "workers":
                    continue  # copied beside the package, not built into it
                source = REPO / src
                if source.is_dir():
                    shutil.copytree(source, ctx / src.rstrip("/"),
                                    ignore=shutil.ignore_patterns("__pycache__", "*_pb2*", ".benchmarks"))
                else:
                    shutil.copy2(source, ctx / src)
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                          "-q", "-w", str(tmp_path / "wheels"), str(ctx)],
                         capture_output=True, text=True, timeout=200,
                         env=dict(os.environ, ARENA_COMPILE="0"))  # the image's own compiler-less build
    assert out.returncode == 0, out.stdout + out.stderr
    (wheel,) = (tmp_path / "wheels").glob("arena-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for proto in (REPO / "proto").rglob("*.proto"):
        mod = proto.relative_to(REPO / "proto").with_suffix("")
        assert f"{mod}_pb2.py" in names and f"{mod}_pb2_grpc.py" in names, f"no generated code for {proto}"
    tracked = subprocess.run(["git", "ls-files", "arena"], capture_output=True, text=True, cwd=REPO,
                             check=True).stdout.split()
    data = [f for f in tracked if not f.endswith(".py") and "/.benchmarks/" not in f]
    missing = sorted(f for f in data if f not in names)
    assert not missing, f"package data missing from the wheel (add to [tool.setuptools.package-data]): {missing}"
