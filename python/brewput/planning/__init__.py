"""Capacity planning: from measurements and models to decisions (fit a scalability
law, calibrate a model from a measured sweep, ...). A module per method."""
