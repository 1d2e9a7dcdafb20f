"""Exports of an analysed design; each reads one Analysis and never recomputes.

The formats are listed in :mod:`exporters.registry`; ``podplanner export`` and the
window's File ▸ Export offer the same list.
"""
