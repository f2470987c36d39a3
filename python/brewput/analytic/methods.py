"""The analytic methods by name, in a module of its own so that the command line
can list them in its help without importing numpy."""

#: "mva" is "mva-exact", "exact" the exact method that fits the network at any
#: cost, "approx" the approximation that "auto" would choose.
METHODS = ("auto", "exact", "approx", "mva", "mva-exact", "convolution", "bard-schweitzer", "linearizer")
