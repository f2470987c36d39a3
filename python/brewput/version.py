"""brewput's version as installed. Its one home is Cargo's workspace version,
which maturin writes into the package's metadata."""
from importlib.metadata import version

__version__ = version("brewput")
