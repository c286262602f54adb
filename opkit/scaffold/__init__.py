"""Scaffolding: `opkit new`, msOpGen import/export."""
