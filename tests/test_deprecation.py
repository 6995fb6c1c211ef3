"""A renamed argument's old name works for one release, with a warning that names the new one."""

from __future__ import annotations

import warnings

import pytest

from agentgym_envs.deprecation import renamed_argument


def _make(data_path=None, *, old_path=None):
    return renamed_argument("data_path", data_path, "old_path", old_path)


def test_new_name_passes_through_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _make("x") == "x" and _make() is None


def test_old_name_warns_at_the_callers_line():
    with pytest.warns(DeprecationWarning, match=r"old_path= is deprecated.*pass data_path=") as w:
        assert _make(old_path="y") == "y"
    assert w[0].filename == __file__


def test_both_names_is_an_error():
    with pytest.raises(TypeError, match="pass data_path= only"):
        _make("x", old_path="y")
