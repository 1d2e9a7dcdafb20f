"""Project files: versioned JSON, validated on load, saved atomically.

Loading reports the exact path of a bad value
(``racks[12].devices[3].u: 47 is above the rack's 42 U``). Files written by an
older format version are migrated step by step; a newer one is refused.
Nothing in a file is executed: it is parsed as JSON and every value is checked
for type and range.

Every value is bounded and every text kept in NFC, by :mod:`designer.bounds` (the
settings', quote's and facility's own bounds are in their modules), which the commands
hold edits to as well: what an edit makes, the reader opens again.

The modules, by seam: :mod:`.errors` (the file's names and its error),
:mod:`.migrations` (format versions), :mod:`.writing` (document, text, atomic save),
:mod:`.reading` (text to project: the two JSON parsers), :mod:`.checking` (the
checking reader), :mod:`.values` (its checks on single values),
:mod:`.plain_racks` (the fast rack reader) and :mod:`.renames` (the renamed catalog
ids a file named, kept on the project it opens as). Callers import from this package.
"""
from .checking import _Reader as _Reader  # re-exported for the speed-path tests, which patch its methods
from .checking import from_dict
from .errors import FORMAT, SUFFIX, ProjectFileError
from .migrations import FORMAT_VERSION, MIGRATIONS, migrate, migration
from .reading import load, loads
from .writing import dumps, save, to_dict

__all__ = ["FORMAT", "FORMAT_VERSION", "MIGRATIONS", "ProjectFileError", "SUFFIX", "dumps", "from_dict", "load",
           "loads", "migrate", "migration", "save", "to_dict"]
