"""brewput: one model of a service system, answered three ways."""
