"""``"replaces"``: an entry names the ids it had before; the catalog answers to them, and refuses what it
cannot follow, naming the file."""
from __future__ import annotations

import json

import pytest

from catalog import CatalogError, load_catalog
from catalog.writer import entry_to_json

HEAD = {"kind": "appliance", "name": "Storage head", "manufacturer": "ACME", "category": "storage",
        "source": "EST", "u_height": 2, "power_max_w": 800}


def _entry(folder, ident, **extra):
    folder.mkdir(exist_ok=True)
    path = folder / f"{ident}.json"
    path.write_text(json.dumps({"id": ident, **HEAD, **extra}))
    return path


def test_an_old_id_names_the_entry_that_replaces_it(tmp_path):
    _entry(tmp_path / "mine", "acme-head-2", replaces=["acme-head", "acme-head-1"])
    cat = load_catalog([tmp_path / "mine"])
    assert cat.renames == {"acme-head": "acme-head-2", "acme-head-1": "acme-head-2"}
    assert cat.get("ACME-HEAD").id == cat.find("acme-head-1").id == "acme-head-2"
    assert "acme-head" in cat and "acme-head-3" not in cat
    assert [d.id for d in cat if d.id.startswith("acme")] == ["acme-head-2"]  # listed once, by its id
    assert entry_to_json(cat.get("acme-head-2"))["replaces"] == ["acme-head", "acme-head-1"]


@pytest.mark.parametrize(("replaces", "field", "reason"), [
    ("acme-head", "replaces", "must be a list of the ids this entry had before, got 'acme-head'"),
    ({"acme-head": 1}, "replaces", "must be a list"),
    ([7], "replaces[0]", "7 is not a catalog id"),
    (["Old Head"], "replaces[0]", "'Old Head' is not a catalog id"),
    (["a" * 101], "replaces[0]", "is not a catalog id"),
    (["old", "old"], "replaces[1]", "'old' is named twice"),
    (["acme-head-2"], "replaces[0]", "'acme-head-2' is this entry's own id"),
    ([f"old-{i}" for i in range(21)], "replaces", "names 21 ids; at most 20"),
])
def test_a_bad_replaces_value_is_refused_naming_the_file(tmp_path, replaces, field, reason):
    path = _entry(tmp_path / "mine", "acme-head-2", replaces=replaces)
    with pytest.raises(CatalogError) as err:
        load_catalog([tmp_path / "mine"])
    assert err.value.file == str(path) and err.value.field == field
    assert reason in str(err.value) and str(err.value).startswith(str(path))


def test_an_id_an_entry_still_has_cannot_be_replaced(tmp_path):
    path = _entry(tmp_path / "mine", "dgx-b200-new", replaces=["dgx-b200"])
    with pytest.raises(CatalogError) as err:
        load_catalog([tmp_path / "mine"])
    assert err.value.file == str(path) and err.value.field == "replaces[0]"
    assert "'dgx-b200' is the id of an entry in the catalog" in str(err.value)
    assert "dgx-b200.json" in str(err.value)  # and says which file has it


def test_two_entries_cannot_replace_one_id(tmp_path):
    first = _entry(tmp_path / "mine", "acme-a", replaces=["acme-old"])
    second = _entry(tmp_path / "mine", "acme-b", replaces=["acme-old"])
    with pytest.raises(CatalogError) as err:
        load_catalog([tmp_path / "mine"])
    assert err.value.file == str(second)
    assert f"'acme-old' is also replaced by 'acme-a' ({first})" in str(err.value)


def test_an_implicit_folder_with_a_bad_replaces_loads_without_that_entry(tmp_path, monkeypatch):
    folder = tmp_path / "envcat"
    _entry(folder, "acme-a", replaces=["acme-old"])
    bad = _entry(folder, "acme-b", replaces=["acme-old"])
    _entry(folder, "acme-c", replaces=["qm9700"])
    monkeypatch.setenv("PODPLANNER_CATALOG", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "noconfig"))
    cat = load_catalog()
    assert "acme-a" in cat and "acme-b" not in cat and "acme-c" not in cat and "qm9700" in cat
    assert cat.renames == {"acme-old": "acme-a"}
    assert len(cat.warnings) == 2
    assert any(w.startswith(str(bad)) and "also replaced by 'acme-a'" in w and w.endswith("this entry is not loaded")
               for w in cat.warnings)
    assert any("'qm9700' is the id of an entry in the catalog" in w for w in cat.warnings)


def test_a_user_entry_that_takes_an_old_id_over_leaves_the_rename_out(tmp_path, catalog_copy):
    # the bundled data renamed qm9700 -> qm9700-x; a user entry defines the old id again
    path = catalog_copy / "network" / "qm9700.json"
    data = json.loads(path.read_text())
    assert data["id"] == "qm9700"
    path.write_text(json.dumps({**data, "id": "qm9700-x", "replaces": ["qm9700"]}))
    assert load_catalog([], builtin=catalog_copy).get("qm9700").id == "qm9700-x"
    user = tmp_path / "mine"
    _entry(user, "qm9700")
    with pytest.raises(CatalogError, match="'qm9700' is the id of an entry in the catalog"):
        load_catalog([user], builtin=catalog_copy)
