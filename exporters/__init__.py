"""Exports of an analysed design (PDF, CSV, XLSX); each reads an Analysis and never recomputes."""
