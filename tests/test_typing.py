"""The public API's type hints, checked by mypy on the modules and the usage file pyproject.toml's
[tool.mypy] names (tests/typing_usage.py: what a user's typed code writes), and shipped (py.typed)."""

import pathlib
import subprocess
import sys

import pytest

import adcompiler

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_mypy_passes_on_the_public_api(tmp_path):
    pytest.importorskip("mypy")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_package_says_it_is_typed():
    assert (pathlib.Path(adcompiler.__file__).parent / "py.typed").is_file()


def test_version_is_the_installed_metadata():
    from importlib.metadata import version

    assert adcompiler.__version__ == version("adcompiler")
