"""Design-space sweeps: a grid of systems, fabrics, sizes, halls, models and plans, each combination generated and
analysed by the same pure functions as ``new superpod`` and ``analyze``, one row per design, on one machine's
process pool or an existing Dask cluster."""
