"""Whatever an edit makes, the file reader opens again: a fixed-seed run of edits with hostile values (huge,
tiny, NaN, half and quarter U, lone surrogates, decomposed accents, over-long text) on the golden design.
Every edit is refused with a CommandError or leaves a project that saves and loads back equal."""
from __future__ import annotations

import math
import random
import warnings

from designer.commands import (AddDeviceCommand, AddHallCommand, AddObjectsCommand, CommandError, Document,
                               MoveDeviceCommand, MoveObjectsCommand, RenameProjectCommand, SetWorkloadCommand,
                               UpdateFloorDeviceCommand, UpdateHallCommand, UpdateQuoteCommand, UpdateRackCommand,
                               UpdateSettingsCommand)
from designer.fileformat import dumps, load, loads
from designer.model import Hall, MountedDevice, Rack
from tests.designer.test_fileformat import GOLDEN

SEED = 19
EDITS = 400

NUMBERS = [1e308, -1e308, math.nan, math.inf, 5e-324, 0, -1, 0.5, 1.25, 10 ** 30, 2.0, 30, 47, 48, 49, True,
           1e7, 1e7 + 1, -1e7, 100, 5000, 50, 0.001, 10000, 10001, None]
TEXTS = ["\udcff", "a\ud800b", "e\u0301", "R\u00e9seau", "", " ", "x" * 300, "ok", "\u0958" * 150, "tab\tbed",
         "line\nbreak", "n1", "p1", "s1", "r1-d2"]
DEVICES = ["qm9700", "dgx-b200", "pdu-415v-32a-3ph", "gb200-nvl72", "no-such-device"]


def _edit(rng: random.Random, project):
    num, text = (lambda: rng.choice(NUMBERS)), (lambda: rng.choice(TEXTS))
    rack = rng.choice(project.racks)
    place = lambda: (num(), num(), rng.choice([0, 90, 360.5, math.nan]))  # noqa: E731
    return rng.choice([
        lambda: MoveObjectsCommand(racks={rack.id: place()}),
        lambda: MoveObjectsCommand(floor_devices={"c1": place()}),
        lambda: UpdateRackCommand(rack.id, {rng.choice(["name", "row"]): text()}),
        lambda: UpdateRackCommand(rack.id, {"power_limit_kw": num()}),
        lambda: UpdateHallCommand("h1", {rng.choice(["power_capacity_kw", "cooling_capacity_kw", "tile_mm",
                                                     "floor_rating_kg_m2", "rack_power_limit_kw"]): num()}),
        lambda: UpdateHallCommand("h1", {"name": text()}),
        lambda: UpdateHallCommand("h1", {"outline": [[0, 0], [num(), 0], [num(), num()], [0, 4800]]}),
        lambda: UpdateFloorDeviceCommand("c1", {"name": text()}),
        lambda: AddDeviceCommand(rack.id, MountedDevice(text(), rng.choice(DEVICES), num(),
                                                        rng.choice(["front", "rear", "side"]), text())),
        lambda: MoveDeviceCommand(rack.id, rack.devices[0].id if rack.devices else "none", num(),
                                  rng.choice(["front", "rear"]), rng.choice([None, "r1", "r2"])),
        lambda: RenameProjectCommand(text()),
        lambda: SetWorkloadCommand({text(): rng.choice([num(), text()])}),
        lambda: UpdateQuoteCommand({rng.choice(["customer", "prepared_by", "quote_number"]): text()}),
        lambda: UpdateSettingsCommand({rng.choice(["power_factor", "derating", "coolant_delta_t_k", "pue",
                                                   "rack_limit_kw"]): num()}),
        lambda: AddHallCommand(Hall(text(), text(), ((0, 0), (num(), 0), (0, 1000)), tile_mm=num())),
        lambda: AddObjectsCommand(racks=(Rack(text(), text(), "h1", "rack-42u-600x1200", num(), num(), 0, text(),
                                      (MountedDevice(text(), rng.choice(DEVICES), num(), "rear"),),
                                      power_limit_kw=num()),)),
    ])()


def test_every_accepted_edit_saves_and_opens_again(catalog):
    rng = random.Random(SEED)
    doc = Document(load(GOLDEN, catalog), catalog)
    accepted = refused = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(EDITS):
            try:
                command = _edit(rng, doc.project)
            except (TypeError, ValueError):  # a model value refused as it is built
                refused += 1
                continue
            try:
                doc.push(command)
            except CommandError:
                refused += 1
                continue
            accepted += 1
            text = dumps(doc.project)  # a ValueError here: an edit made what cannot be stored
            assert loads(text, catalog) == doc.project, f"edit {i}: {command!r:.300}"
    # the run reached both outcomes, many times
    assert accepted > EDITS // 10 and refused > EDITS // 4, (accepted, refused)
