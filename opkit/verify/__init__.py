"""Verify: case inputs, golden, comparison by precision profile, reports."""
