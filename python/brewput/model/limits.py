"""Every bound on what a model or study may ask for, in one place.

Each stops a runaway input (a typo, a generated file gone wrong, a hostile one)
before it costs minutes, gigabytes or an overflow: beyond these, it is not a model.
The readers, the expression evaluator, the distributions and the model's
validators all take their bounds from here. The bounds the engine checks too are
the engine's (crates/sim/src/vocabulary.rs), read through brewput.vocabulary."""
from ..vocabulary import MAX_BALK_PROBABILITIES as MAX_BALK_PROBABILITIES  # a step's balk: [...] list
from ..vocabulary import MAX_BRANCH_DEPTH as MAX_BRANCH_DEPTH  # forks and dispatches inside branches of them
from ..vocabulary import MAX_SEED

# Files: model files, study files and empirical CSVs, all read by source.read_text.
MAX_FILE_BYTES = 4 * 1024 * 1024  # pure-Python YAML reads about 0.2 MB/s: a few seconds at most
MAX_ENTRIES = 100_000  # YAML nodes (keys, values, list items), aliases expanded
MAX_DEPTH = 64  # nesting of mappings and lists; also stops self-referencing aliases (&a [*a])
MAX_YAML_INTEGER = MAX_SEED + 1  # the largest whole number a file may write (a seed, a u64)

# Sizes of one thing.
MAX_SIZE = 10_000_000  # servers, buffer, tokens, population: beyond this it is a typo
MAX_ITEMS = 10_000  # resources, stations, classes, steps of one route
MAX_STUDY_MODELS = 1_000  # models (or variants) of one study: each is loaded and resolved
MAX_PHASES = 10_000  # an erlang draw costs k exponentials

# Totals over the whole model: what the engine allocates per replication.
MAX_TOTAL_POPULATION = 10_000_000  # about 60 bytes a customer in each replication
MAX_TOTAL_STEPS = 100_000  # steps of all routes together
MAX_EMPIRICAL = 1_000_000  # empirical values of all distributions together

# Numbers: bounds that keep every derived figure (mean, variance, squared cv,
# gamma's shape and scale, lognormal's mu and sigma, a hyperexponential's phase
# means, sums over empirical values) finite and positive where it must be.
MAX_TIME = 1e12  # any time (a mean, a value, a bound, a spread), in the model's time unit
MIN_TIME = 1e-12  # the smallest positive mean; 0 stays allowed where a time may be 0
MIN_CV = 1e-6  # gamma: shape 1/cv² at most 1e12
MAX_CV = 1e3  # squared cv at most 1e6

# `${...}` expressions.
MAX_EXPRESSION_CHARS = 1_000
MAX_EXPRESSION_NODES = 200  # numbers, names, operations and calls
MAX_EXPRESSION_DEPTH = 100  # the evaluator recurses: far below Python's limit of 1000
MAX_INTEGER = 2**63  # larger integers mean a runaway expression, not a model
MAX_ROUND_DIGITS = 20  # round(x, n): |n| beyond this changes nothing a float can hold
