"""Adding many racks at once: their devices are checked as whole columns where every one is plain, and one by one
(naming the first fault exactly) where any is not; both ways give the same design."""
from __future__ import annotations

from dataclasses import replace

import pytest

from designer.commands import AddObjectsCommand, CommandError
from designer.commands import objects
from designer.model import Hall, MountedDevice, Project, Rack

HALL = Hall("h1", "Hall", ((0, 0), (60000, 0), (60000, 30000), (0, 30000)))


def _racks(n: int = 40) -> tuple[Rack, ...]:
    return tuple(Rack(f"r{i}", f"A{i:02d}", "h1", "rack-42u-600x1200", 600 * i + 300, 1200.0,
                      devices=(MountedDevice(f"r{i}-n1", "dgx-b200", 1, "front", f"dgx-{i}"),
                               MountedDevice(f"r{i}-sw", "qm9700", 40, "rear", f"leaf-{i}")))
                 for i in range(n))


def _add(project, catalog, racks, columns: bool, monkeypatch):
    if not columns:
        monkeypatch.setattr(objects, "_plain_devices", lambda *a: False)
    return AddObjectsCommand(racks=racks).apply(project, catalog)[0]


def _spied(monkeypatch):
    calls = []
    real = objects._plain_devices
    monkeypatch.setattr(objects, "_plain_devices", lambda *a: calls.append(real(*a)) or calls[-1])
    return calls


def test_plain_devices_are_checked_as_columns_and_give_the_design_one_by_one_gives(catalog, monkeypatch):
    project = Project(halls=(HALL,))
    calls = _spied(monkeypatch)
    fast = AddObjectsCommand(racks=_racks()).apply(project, catalog)[0]
    assert calls == [True]
    slow = _add(project, catalog, _racks(), False, monkeypatch)
    assert fast == slow and len(fast.racks) == 40
    # a place in whole millimetres is kept as the file keeps it (a float); a rack already so arrives as it was sent
    assert type(fast.racks[3].x) is float and fast.racks[3] == replace(_racks()[3], x=2100.0)
    sent = tuple(replace(r, x=float(r.x)) for r in _racks())
    kept = AddObjectsCommand(racks=sent).apply(project, catalog)[0]
    assert all(a is b for a, b in zip(kept.racks, sent))


@pytest.mark.parametrize(("fault", "words"), [
    (lambda d: replace(d, id="r0-n1"), "rack 'A05': device id 'r0-n1' is already used in another new rack"),
    (lambda d: replace(d, id=" "), "rack 'A05': a device needs an id"),
    (lambda d: replace(d, face="top"), "rack 'A05': face must be front or rear, got 'top'"),
    (lambda d: replace(d, type="no-such-box"), "no-such-box"),
    (lambda d: replace(d, name="x" * 201), "rack 'A05': device name is 201 characters long"),
    (lambda d: replace(d, name=None), "rack 'A05': device name must be text, got None"),
])
def test_one_fault_among_plain_devices_is_named_as_one_by_one_names_it(catalog, monkeypatch, fault, words):
    racks = list(_racks())
    racks[5] = replace(racks[5], devices=(fault(racks[5].devices[0]), racks[5].devices[1]))
    calls = _spied(monkeypatch)
    with pytest.raises(CommandError, match=words):
        AddObjectsCommand(racks=tuple(racks)).apply(Project(halls=(HALL,)), catalog)
    assert calls == [False]


def test_what_is_not_a_device_at_all_is_refused_in_the_order_one_by_one_refuses_it(catalog, monkeypatch):
    racks = list(_racks())
    racks[5] = replace(racks[5], devices=(replace(racks[5].devices[0], face=["front"]),))
    calls = _spied(monkeypatch)
    with pytest.raises(CommandError, match=r"rack 'A05': face must be front or rear, got \['front'\]"):
        AddObjectsCommand(racks=tuple(racks)).apply(Project(halls=(HALL,)), catalog)
    # a rack without a device list after one in no hall: the hall is named first, as before
    racks = [replace(racks[0], hall="nope"), replace(racks[1], devices=None)]
    with pytest.raises(CommandError, match="rack 'A00': no hall with id 'nope'"):
        AddObjectsCommand(racks=tuple(racks)).apply(Project(halls=(HALL,)), catalog)
    assert calls == [False, False]


def test_text_the_design_keeps_otherwise_is_taken_one_by_one(catalog, monkeypatch):
    # an upper-case type and a decomposed accent: kept as the catalog's id and as NFC, as one by one keeps them
    racks = list(_racks())
    racks[7] = replace(racks[7], devices=(replace(racks[7].devices[0], type="DGX-B200", name="Cafe\u0301"),))
    calls = _spied(monkeypatch)
    project = AddObjectsCommand(racks=tuple(racks)).apply(Project(halls=(HALL,)), catalog)[0]
    assert calls == [False]
    device = project.rack("r7").devices[0]
    assert (device.type, device.name) == ("dgx-b200", "Caf\u00e9")


def test_an_id_the_design_already_holds_is_refused_either_way(catalog, monkeypatch):
    project = AddObjectsCommand(racks=_racks(3)).apply(Project(halls=(HALL,)), catalog)[0]
    again = (Rack("r9", "A09", "h1", "rack-42u-600x1200", 9000, 6000,
                  devices=(MountedDevice("r1-sw", "qm9700", 40, "rear"),)),)
    calls = _spied(monkeypatch)
    with pytest.raises(CommandError, match="rack 'A09': device id 'r1-sw' is already used in rack 'A01'"):
        AddObjectsCommand(racks=again).apply(project, catalog)
    assert calls == [False]
