"""``agentgym harness install``: real npm and pip installs into a temporary harness folder, with
small stand-ins for the harnesses (a real npm package with a command, a real PyPI package in a
venv of its own): installed once and then left alone, a failure is an error with the failing
command's output and leaves nothing behind (an older installation is put back), and the
printed install command works as printed. With the real harnesses installed (CI), their pins,
OpenClaw's Node and ``install --all`` being a no-op are checked too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from agentgym_envs.integrations.harnesses import get_harness, names
from agentgym_envs.integrations.harnesses.base import Harness
from agentgym_envs.integrations.harnesses.install import (
    UNFINISHED,
    HarnessInstallError,
    find_python,
    freeze,
    install,
    is_installed,
    missing_prerequisite,
    pins,
)

REQUIRED = os.environ.get("AGENTGYM_REQUIRE_HARNESSES") == "1"


class TinyNpm(Harness):
    """A real npm package with a command of its own, standing in for an npm harness."""

    name = "tiny-npm"
    title = "Tiny npm"
    package = "semver@7.6.3"
    binary = "semver"

    def check_command(self, executable):
        return [executable, "1.2.3"]  # its CLI has no --version


class TinyPip(Harness):
    """A real PyPI package in a venv of its own, standing in for a Python harness."""

    name = "tiny-pip"
    title = "Tiny pip"
    package = "six==1.16.0"
    kind = "pip"
    module = "six"
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_HARNESSES", str(tmp_path / "harnesses"))
    return tmp_path / "harnesses"


def _npm():
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")


def test_an_npm_harness_installs_once_then_is_left_alone(folder):
    _npm()
    tiny = TinyNpm()
    assert not is_installed(tiny) and tiny.locate() is None
    assert install(tiny) is True
    assert is_installed(tiny) and not (tiny.prefix() / UNFINISHED).exists()
    assert tiny.locate() == str(folder / "npm" / "tiny-npm" / "node_modules" / ".bin" / "semver")
    assert subprocess.run([tiny.locate(), "--help"], capture_output=True).returncode == 0
    log = folder / "logs" / "tiny-npm-install.log"
    before = log.stat().st_mtime_ns
    assert install(tiny) is False  # nothing done: the log is not even rewritten
    assert log.stat().st_mtime_ns == before


def test_a_failed_install_leaves_nothing_and_puts_the_old_one_back(folder):
    _npm()
    tiny = TinyNpm()
    install(tiny)
    broken = TinyNpm()
    broken.package = "semver@0.0.0-no-such-version"
    with pytest.raises(HarnessInstallError) as failed:
        install(broken)
    message = str(failed.value)
    assert "npm install --prefix" in message and "semver@0.0.0-no-such-version" in message
    assert "exited with code" in message and "notarget" in message.lower()  # npm's own words
    # the older installation is back, whole, and nothing of the attempt is left
    assert is_installed(tiny) and sorted(p.name for p in (folder / "npm").iterdir()) == [
        ".tiny-npm.lock",
        "tiny-npm",
    ]
    shutil.rmtree(tiny.prefix())
    with pytest.raises(HarnessInstallError):
        install(broken)
    assert not tiny.prefix().exists()


def test_an_install_that_was_killed_is_not_installed_and_is_redone(folder):
    _npm()
    tiny = TinyNpm()
    install(tiny)
    (tiny.prefix() / UNFINISHED).write_text(tiny.package)  # as a killed attempt leaves it
    assert not is_installed(tiny)
    assert install(tiny) is True and is_installed(tiny)
    assert not (folder / "npm" / ".tiny-npm.old").exists()


def test_the_printed_install_command_works(folder):
    _npm()
    tiny = TinyNpm()
    command = tiny.install_command()
    assert command.startswith(f"npm install --prefix {tiny.prefix()} ")
    subprocess.run(["bash", "-c", command], check=True, capture_output=True, timeout=600)
    assert is_installed(tiny) and install(tiny) is False


def test_openclaw_installs_node_first_then_itself_with_that_node_first_on_path(folder):
    command = get_harness("openclaw").install_command()
    prefix = folder / "npm" / "openclaw"
    first, second = command.split(" && ")
    assert first.startswith(f"npm install --prefix {prefix} ") and first.endswith(" node@24.21.0")
    assert second.startswith(f"PATH={prefix}/node_modules/.bin:$PATH npm install --prefix {prefix}")
    assert second.endswith(" openclaw@2026.9.6")


def test_a_python_harness_gets_a_venv_of_its_own(folder):
    tiny = TinyPip()
    python = find_python(tiny.python)
    if python is None:
        pytest.skip(f"no Python {tiny.python} that makes venvs")
    assert install(tiny) is True
    venv_python = folder / "venvs" / "tiny-pip" / "bin" / "python"
    assert tiny.locate() == str(venv_python) and is_installed(tiny)
    assert install(tiny) is False
    broken = TinyPip()
    broken.name, broken.package = "tiny-broken", "six==0.0.0"
    with pytest.raises(HarnessInstallError, match="pip install six==0.0.0") as failed:
        install(broken)
    assert "No matching distribution" in str(failed.value)
    assert not broken.prefix().exists()


def test_no_python_of_the_version_is_a_one_line_error_with_the_mend(folder):
    tiny = TinyPip()
    tiny.python = "3.99"
    with pytest.raises(HarnessInstallError, match=r"Python 3\.99 .*pyenv install 3\.99"):
        install(tiny)
    assert not tiny.prefix().exists()


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "harness", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_cli_takes_names_or_all_and_says_the_mend():
    assert "give the harnesses to install, or --all" in _cli("install").stderr
    wrong = _cli("install", "clien")
    assert wrong.returncode == 2 and "did you mean 'cline'" in wrong.stderr


@pytest.mark.skipif(not REQUIRED, reason="the real harnesses are installed in CI only")
def test_the_installed_harnesses_have_their_pins_and_install_all_does_nothing():
    installable = [n for n in names() if missing_prerequisite(get_harness(n)) is None]
    assert {"cline", "kilocode", "openclaw"} <= set(installable)  # npm is on every CI machine
    for name in installable:
        harness = get_harness(name)
        assert is_installed(harness), f"{name}: {harness.install_command()}"
        assert str(harness.prefix()) in harness.locate()
    node = get_harness("openclaw").prefix() / "node_modules" / ".bin" / "node"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    assert tuple(map(int, version[1:].split(".")[:2])) >= (24, 16)
    assert pins(get_harness("openclaw"))["node"] == version.strip()[1:]
    # OpenClaw's own install script refuses an older Node: with the harness's PATH it passes
    openclaw = get_harness("openclaw")
    package = openclaw.prefix() / "node_modules" / "openclaw"
    script = json.loads((package / "package.json").read_text())["scripts"]["preinstall"]
    env = {**os.environ, "PATH": openclaw.search_path()}
    assert subprocess.run(script, shell=True, cwd=package, env=env).returncode == 0
    again = _cli("install", "-j", "4", *installable)  # as .ci/run installs them
    assert again.returncode == 0 and again.stdout.count("already installed") == len(installable)


def test_a_python_harness_installs_with_its_constraints_and_says_each_step(folder, tmp_path):
    tiny = TinyPip()
    if find_python(tiny.python) is None:
        pytest.skip(f"no Python {tiny.python} that makes venvs")
    constraints = tmp_path / "tiny.txt"
    constraints.write_text("six==1.16.0\n")
    tiny.package = "six"  # unpinned: the constraints decide
    tiny.constraints = lambda: constraints
    assert f"pip install -c {constraints} six" in tiny.install_command()
    lines = []
    assert install(tiny, progress=lines.append) is True
    log = folder / "logs" / "tiny-pip-install.log"
    assert lines[0] == f"log: {log}" and log.is_file()
    assert lines[1].startswith("step 1/3: ") and " -m venv " in lines[1]
    assert lines[2].startswith("step 1/3 done in ") and lines[2].endswith(" s")
    assert lines[3] == f"step 2/3: {folder}/venvs/tiny-pip/bin/pip install -c {constraints} six"
    assert lines[-1] == "step 3/3: check that it runs"
    frozen = freeze(tiny)
    assert frozen.startswith("# six: every package") and "\nsix==1.16.0\n" in frozen


@pytest.mark.parametrize("name", ["openhands", "hermes-agent"])
def test_each_python_harness_ships_constraints_that_pin_its_own_pins(name):
    harness = get_harness(name)
    constraints = harness.constraints()
    assert constraints is not None and constraints.is_file()
    pinned = dict(
        line.split("==", 1)
        for line in constraints.read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert len(pinned) > 20  # the whole resolved install, not only the top packages
    for package, version in pins(harness).items():
        assert pinned.get(package) == version, package
    assert f"install -c {constraints} " in harness.install_command()
