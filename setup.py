"""The setup.py entry point the layout names; everything is declared in pyproject.toml."""

from setuptools import setup

setup()
