"""Rack and floor-unit INSERTs and labels written as DXF text: the many entities of a big floor plan.

The drawing (:mod:`exporters.dxf`) makes layers, blocks and the few other entities with ezdxf; the entities
there are one of per rack and floor unit come from here and are spliced into ezdxf's ENTITIES section.
"""
from __future__ import annotations

import io
import math
import re

import ezdxf


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def text_value(text: str) -> str:
    """A DXF string: one line, so a control character in a name cannot break the file."""
    return _CONTROL.sub(" ", text)


def num(v: float) -> str:
    return repr(float(v))


class RawEntities:
    """Rack and floor-unit INSERTs (with ATTRIBs and SEQEND) and labels as DXF text, for the ENTITIES section.

    ezdxf writes an entity by walking every attribute its class could have (over 1 ms for an INSERT
    with four ATTRIBs), which took 12 s for a 100,000-GPU hall; these few entity kinds, written in the
    group codes ezdxf uses for them, take about 0.3 s. Handles come from a block reserved in ezdxf's handle
    generator before any other entity is made, so $HANDSEED stays above every handle in the file.
    """

    def __init__(self, doc, handles_needed: int, style: str):
        """``style``: the text style every ATTRIB and TEXT uses (the drawing's own)."""
        self.owner = doc.modelspace().block_record_handle
        self.style = style
        gen = doc.entitydb.handles
        self._next = int(str(gen), 16)
        self._end = self._next + handles_needed
        gen.reset(f"{self._end:X}")
        self.chunks: list[str] = []
        self.count = 0

    def _handle(self, counted: bool = True) -> str:
        """The next reserved handle; ``counted`` is False for a SEQEND, which marks an end and draws nothing."""
        if self._next >= self._end:
            raise RuntimeError("more DXF entities written than handles reserved")
        h = f"{self._next:X}"
        self._next += 1
        self.count += counted
        return h

    def insert(self, block: str, layer: str, x: float, y: float, angle: float, tags, values,
               height: float) -> None:
        """An INSERT of ``block`` and its invisible ATTRIBs where the block's ATTDEFs land once turned."""
        h = self._handle()
        xs, ys, rot = num(x), num(y), num(angle)
        out = [f"  0\nINSERT\n  5\n{h}\n330\n{self.owner}\n100\nAcDbEntity\n  8\n{layer}\n"
               f"100\nAcDbBlockReference\n 66\n1\n  2\n{block}\n 10\n{xs}\n 20\n{ys}\n 30\n0.0\n 50\n{rot}\n"]
        a = math.radians(angle)
        c, s = math.cos(a), math.sin(a)
        hs = num(height)
        for i, (tag, value) in enumerate(zip(tags, values)):
            oy = -i * height * 1.4  # as _attdefs stacks them
            out.append(f"  0\nATTRIB\n  5\n{self._handle()}\n330\n{h}\n100\nAcDbEntity\n  8\n{layer}\n"
                       f"100\nAcDbText\n 10\n{num(x - oy * s)}\n 20\n{num(y + oy * c)}\n 30\n0.0\n"
                       f" 40\n{hs}\n  1\n{text_value(value)}\n 50\n{rot}\n  7\n{self.style}\n"
                       f"100\nAcDbAttribute\n  2\n{tag}\n 70\n{ezdxf.const.ATTRIB_INVISIBLE}\n")
        out.append(f"  0\nSEQEND\n  5\n{self._handle(False)}\n330\n{h}\n100\nAcDbEntity\n  8\n{layer}\n")
        self.chunks.append("".join(out))

    def text(self, text: str, layer: str, x: float, y: float, height: float, angle: float, halign: int) -> None:
        """A one-line TEXT aligned on (x, y): centred (``halign`` 1) or starting there (0), middle of its height."""
        xs, ys = num(x), num(y)
        self.chunks.append(
            f"  0\nTEXT\n  5\n{self._handle()}\n330\n{self.owner}\n100\nAcDbEntity\n  8\n{layer}\n"
            f"100\nAcDbText\n 10\n{xs}\n 20\n{ys}\n 30\n0.0\n 40\n{num(height)}\n  1\n{text_value(text)}\n"
            f" 50\n{num(angle)}\n  7\n{self.style}\n 72\n{halign}\n 11\n{xs}\n 21\n{ys}\n 31\n0.0\n"
            f"100\nAcDbText\n 73\n2\n")

    def split(self, doc) -> tuple[str, str]:
        """ezdxf's file, cut where these entities go: at the end of the ENTITIES section."""
        buf = io.StringIO()
        doc.write(buf)
        text = buf.getvalue()
        start = text.index("\n  2\nENTITIES\n")
        cut = text.index("\n  0\nENDSEC\n", start) + 1
        return text[:cut], text[cut:]
