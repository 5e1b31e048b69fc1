"""The package's version, in a module of its own: the transcript header records it, and `arena --version` prints it,
without loading the package's `__init__` (which loads the Python API on first use)."""

__version__ = "0.1.0"
