"""brewput: one model of a service system, answered three ways.

The public names load on first use, so that `import brewput` (and so the CLI's
start-up) stays cheap and a Ctrl-C during start-up lands in code that handles it.
"""
from importlib import import_module

_PUBLIC = {
    "BrewputError": ".errors",
    "ModelError": ".errors",
    "OptionError": ".errors",
    "EngineError": ".errors",
    "DeadlockError": ".errors",
    "UnstableError": ".errors",
    "CancelledError": ".errors",
    "Model": ".model",
    "load": ".model",
    "simulate": ".engine.simulate",
    "solve": ".engine.solve",
    "sweep": ".experiment.runner",
    "table": ".experiment.tables",
    "__version__": ".version",
}

__all__ = sorted(_PUBLIC)


def __dir__():
    # The public names, not yet loaded (and not import_module): what tab completion offers.
    return sorted(set(__all__) | {name for name in globals() if name.startswith("__")})


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'brewput' has no attribute {name!r}")
    return getattr(import_module(_PUBLIC[name], __name__), name)
