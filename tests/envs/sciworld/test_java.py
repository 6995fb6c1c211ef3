"""Finding Java: version parsing and the one-line mend when it is missing or too old."""

from __future__ import annotations

import os
import stat

import pytest

from agentgym_envs.envs.sciworld import java
from agentgym_envs.envs.sciworld.java import (
    JavaMissingError,
    check_java,
    parse_java_version,
    require_java,
)


def test_parse_java_version_old_and_new_schemes():
    assert parse_java_version('openjdk version "17.0.15" 2025-04-15') == 17
    assert parse_java_version('java version "1.8.0_392"') == 8
    assert parse_java_version('openjdk version "21" 2023-09-19') == 21
    assert parse_java_version("no version here") is None


def test_missing_java_is_one_line_with_apt_mend(monkeypatch, tmp_path):
    monkeypatch.setenv(java.JAVA_ENV, str(tmp_path / "no-java-here"))
    ok, message = check_java()
    assert not ok and "\n" not in message
    assert "apt-get install -y default-jre-headless" in message
    with pytest.raises(JavaMissingError) as err:
        require_java()
    assert "\n" not in str(err.value)


def test_making_the_env_without_java_raises_the_mend(monkeypatch, tmp_path):
    pytest.importorskip("scienceworld")
    from agentgym_envs.envs.sciworld.env import SciWorldEnv

    monkeypatch.setenv(java.JAVA_ENV, str(tmp_path / "no-java-here"))
    with pytest.raises(JavaMissingError, match="default-jre-headless"):
        SciWorldEnv()


def test_too_old_java_is_reported(monkeypatch, tmp_path):
    fake = tmp_path / "java"
    fake.write_text("#!/bin/sh\necho 'java version \"1.7.0_80\"' >&2\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv(java.JAVA_ENV, str(fake))
    ok, message = check_java()
    assert not ok and "Java 7" in message and "default-jre-headless" in message


def test_java_home_is_used_before_path(monkeypatch, tmp_path):
    bin_dir = tmp_path / "jdk" / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "java"
    fake.write_text("#!/bin/sh\necho 'openjdk version \"21.0.1\" 2023-10-17' >&2\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.delenv(java.JAVA_ENV, raising=False)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    assert check_java() == (True, f"Java 21 at {os.fspath(fake)}")


def test_this_machine_has_a_usable_java():
    ok, message = check_java()
    if not ok:
        pytest.skip(message)
    assert message.startswith("Java ")
