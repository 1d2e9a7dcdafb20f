"""A link's fibre class, spread through the cages it shares (media._fibre_classes), for any number of classes."""
from __future__ import annotations

import numpy as np
import pytest

from designer.fabric import media


class _Parts:
    """``n`` fibre classes, class c reaching 10 * (c + 1) m, each with a fibre of that reach."""

    def __init__(self, n: int):
        self.classes = [("smf", f"c{c}") for c in range(n)]

    def reach(self, cage, cls: int) -> float:
        return 10.0 * (cls + 1)

    def fibres(self, cls: int, speed: float):
        return [media.Part(f"f{cls}", 10.0 * (cls + 1), 1.0, (10.0 * (cls + 1),))]


@pytest.mark.parametrize("classes", [4, 126, 127, 200])
def test_classes_spread_through_shared_cages_whatever_their_number(classes):
    # links 0 and 1 share cage 0 at their a end; link 2 stands alone; link 3 is longer than any class reaches
    raw = np.array([5.0, 35.0, 15.0, 10.0 * classes + 1])
    a_key = np.array([0, 0, 2, 4])
    b_key = np.array([1, 3, 5, 6])
    zeros = np.zeros(4, dtype=np.int64)
    cage = media.Cage(800.0, 2)
    w = media._Work(_Parts(classes), [cage], raw, a_key, b_key, zeros, zeros, np.full(4, media.NONE, np.int8),
                    np.full(4, np.nan), np.full(4, -1), np.full(4, -1), media._Ids())
    fi = np.arange(4)
    cls = media._fibre_classes(w, fi, media.cage_index(np.concatenate([a_key, b_key])))
    # 35 m needs class 3; link 0 (5 m, class 0 alone) shares its cage and is raised to it; none reaches link 3
    assert cls.tolist() == [3, 3, 1, classes]
    assert cls.dtype == np.int64
