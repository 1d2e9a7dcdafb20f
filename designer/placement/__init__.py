"""Placement rules of the floor plan, without Qt: footprints, where things may stand, snapping, names.

The commands (:mod:`designer.commands`) enforce these rules on every edit that
places something, the findings (:func:`designer.checks.check_space`) report
where a loaded file breaks them, and the canvas previews them while dragging;
all three ask the same :class:`SpaceIndex` with the same tolerances.

- :mod:`.geometry`: rotated rectangles, one at a time or vectorised.
- :mod:`.footprints`: the footprint of each rack and floor unit.
- :mod:`.index`: wall and overlap tolerances, the spatial index and its per-project cache.
- :mod:`.arrange`: snapping, align, distribute, clearance bands.
- :mod:`.naming`: names and ids of new objects.
"""
from .arrange import (ALIGN_MODES, FRONT_CLEARANCE_MM, REAR_CLEARANCE_MM, ROW_AISLE_MM, align, clearance_bands,
                      distribute, snap_centre, snap_delta)
from .footprints import (DEFAULT_RACK_MM, Footprint, floor_footprint, footprint_of, footprints_of, placed_objects,
                         rack_footprint, rack_size)
from .geometry import box, corner_arrays, corners, extent, local_to_hall, rear_offset, rectangles
from .index import (OVERLAP_TOLERANCE_MM2, WALL_TOLERANCE_MM, Problem, SpaceIndex, carry_index, check_move,
                    check_new, hall_shape, overlap_areas, overlap_clusters,
                    overlapping_pairs, space_index)
from .naming import new_ids, next_names, next_row_letter, split_name

__all__ = [
    "ALIGN_MODES", "DEFAULT_RACK_MM", "FRONT_CLEARANCE_MM", "OVERLAP_TOLERANCE_MM2", "REAR_CLEARANCE_MM",
    "ROW_AISLE_MM", "WALL_TOLERANCE_MM", "Footprint", "Problem", "SpaceIndex", "align", "box", "carry_index",
    "check_move", "check_new", "clearance_bands", "corner_arrays", "corners", "distribute", "extent",
    "floor_footprint", "footprint_of", "footprints_of", "hall_shape", "local_to_hall", "new_ids", "next_names",
    "next_row_letter", "overlap_areas", "overlap_clusters", "overlapping_pairs", "placed_objects", "rack_footprint",
    "rack_size", "rear_offset", "rectangles", "snap_centre", "snap_delta", "space_index", "split_name",
]
