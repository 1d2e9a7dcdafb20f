"""Benchmarks: ``python -m bench [NAME ...]`` prints one JSON object of figures."""
