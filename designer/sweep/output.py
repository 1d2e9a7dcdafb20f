"""A sweep's rows as a file: CSV for a spreadsheet, Parquet (typed columns) for a data frame.

Both are written whole or not at all. In the CSV an empty cell is a figure that does not apply (a design that
could not be built has no racks; a plan that does not fit has no throughput); in Parquet it is a null, and each
column has its type (whole numbers, numbers, true/false, text) and its meaning in the schema's metadata.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from catalog.files import write_atomic

from .rows import COLUMNS, NAMES

FORMATS = (".csv", ".parquet")


class OutputError(ValueError):
    """An output the sweep cannot write (its kind, or a missing library)."""


def output_format(path: str | Path) -> str:
    """``.csv`` or ``.parquet``, from the file's name (an OutputError otherwise)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise OutputError(f"-o {path}: the output is a .csv or a .parquet file")
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise OutputError("-o *.parquet needs pyarrow: pip install pyarrow (or write a .csv)") from None
    return suffix


def write_rows(rows: Sequence[tuple], path: str | Path, *, grid_text: str = "") -> None:
    """``rows`` (in :data:`~.rows.COLUMNS` order) to ``path``; ``grid_text``: the grid, kept in a Parquet file's
    metadata so that the file says what it sweeps."""
    if output_format(path) == ".csv":
        write_atomic(path, _csv(rows), newline="")
    else:
        write_atomic(path, lambda fh: _parquet(rows, fh, grid_text), text=False)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same number
    return str(value)


def _csv(rows: Sequence[tuple]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(NAMES)
    writer.writerows([_cell(v) for v in row] for row in rows)
    return out.getvalue()


def _parquet(rows: Sequence[tuple], fh, grid_text: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    kinds = {"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    schema = pa.schema([pa.field(c.name, kinds[c.kind], metadata={"description": c.doc}) for c in COLUMNS],
                       metadata={"podplanner.sweep.grid": grid_text})
    columns = list(zip(*rows)) if rows else [() for _ in COLUMNS]
    table = pa.Table.from_arrays([pa.array(list(col), type=f.type) for col, f in zip(columns, schema)],
                                 schema=schema)
    pq.write_table(table, fh)
