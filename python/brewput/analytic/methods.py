"""The analytic methods by name, in a module of its own so that the command line
can list them in its help without importing numpy."""
from ..errors import OptionError

#: "mva" is "mva-exact", "exact" the exact method that fits the network at any
#: cost, "approx" the approximation that "auto" would choose, "ctmc" the model's
#: Markov chain (analytic/chain/).
METHODS = ("auto", "exact", "approx", "mva", "mva-exact", "convolution", "bard-schweitzer", "linearizer", "ctmc")
CHAIN = "ctmc"
#: The most states `auto` builds a chain of unless --max-states says more: auto should
#: answer in seconds, and a chain of 10^5 states is walked and solved in about 2
#: (bench/RESULTS.md, "A chain of 10^5 states, beside LINE"); --method ctmc builds up to
#: 1,000,000.
AUTO_MAX_STATES = 100_000
#: A model with a day (analytic/timevarying/day_model.py), each as the results name it:
#: auto and exact are the exact transient, approx is MOL.
DAY_METHODS = {"auto": "transient", "exact": "transient", "transient": "transient", "approx": "mol",
               "psa": "psa", "sipp": "sipp", "lag-sipp": "lag-sipp", "mol": "mol"}


def check_method(method: str) -> None:
    """Refuses a method that is not one of METHODS."""
    if method not in METHODS:
        raise OptionError("method", f"expected one of {', '.join(METHODS)}, got {method!r}")


def check_max_states(max_states) -> None:
    """Refuses a limit on the chain's states that is not a positive whole number."""
    if max_states is not None and (isinstance(max_states, bool) or not isinstance(max_states, int) or max_states < 1):
        raise OptionError("max_states", f"expected a positive whole number of states, got {max_states!r}")
