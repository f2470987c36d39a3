"""Worker processes started as multiprocessing's spawn starts them, except that
they do not run the user's main script again.

A spawned child runs the parent's `__main__` (as `__mp_main__`) before anything
else, so that what the script defines can be unpickled there. A script with no
`if __name__ == "__main__":` guard then runs again in every worker, starts its
own pool there and dies (BrokenProcessPool). brewput's workers run brewput's
functions on brewput's objects and need nothing from the script, so, as loky's
(joblib's) workers, they start without it; they still get the parent's
sys.path, sys.argv and working directory. Only an object the script itself
defines cannot then reach a worker, and `pickled` says so before sending it.
"""
from __future__ import annotations

import io
import pickle
import threading
import types
from multiprocessing import context, popen_spawn_posix, spawn

from ..errors import BrewputError

# What spawn's preparation data says to run of the parent's __main__ (multiprocessing/spawn.py).
_MAIN_KEYS = ("init_main_from_name", "init_main_from_path")
_launching = threading.Lock()


class _PopenWithoutMain(popen_spawn_posix.Popen):
    def _launch(self, process_obj) -> None:
        # spawn's launch, with its preparation data read without the main keys.
        # The stdlib offers no hook for them: the function it calls is replaced
        # while this one launch runs, and only for this thread's call, so that
        # another thread's processes still get their main module.
        prepare = spawn.get_preparation_data
        launcher = threading.get_ident()

        def without_main(name):
            data = prepare(name)
            if threading.get_ident() == launcher:
                for key in _MAIN_KEYS:
                    data.pop(key, None)
            return data

        with _launching:
            spawn.get_preparation_data = without_main
            try:
                super()._launch(process_obj)
            finally:
                spawn.get_preparation_data = prepare


class _ProcessWithoutMain(context.SpawnProcess):
    @staticmethod
    def _Popen(process_obj):
        return _PopenWithoutMain(process_obj)


class SpawnWithoutMain(context.SpawnContext):
    """The spawn context (its queues, events, start method), whose processes
    start without the parent's main script."""

    Process = _ProcessWithoutMain


class _RefusingMain(pickle.Pickler):
    # Called for every object pickled except plain ints, strs, lists, dicts...;
    # a class or a function is pickled as a reference to its module.
    def reducer_override(self, obj):
        if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == "__main__":
            raise BrewputError(f"{obj.__qualname__} is defined in the script itself (__main__), which brewput's "
                               f"worker processes do not run: define it in a module the script imports, "
                               f"or run with workers=1")
        return NotImplemented


def pickled(obj) -> bytes:
    """`obj` pickled for a worker; a BrewputError naming what the script itself
    defines in it (which a worker without the script cannot unpickle)."""
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    if b"__main__" in data:  # the rare case, looked at closely (a model may be named __main__)
        _RefusingMain(io.BytesIO(), pickle.HIGHEST_PROTOCOL).dump(obj)
    return data
