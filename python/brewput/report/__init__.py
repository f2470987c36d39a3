"""Turning results into what people read: tables (and later charts and reports)."""
