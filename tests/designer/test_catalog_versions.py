"""A project file remembers its catalog: what wrote it (app_version, catalog_version, from the catalog the caller
saves with), and a catalog entry renamed since (``"replaces"``) still opens the file, says so, and saves the new
id. The renames travel in the project value (``Project.renames``), so the analysis is a function of the value."""
from __future__ import annotations

import json
import pickle
from dataclasses import replace

import pytest

from catalog import load_catalog
from designer import __version__
from designer.analysis import analyze
from designer.cli import main
from designer.commands import AddObjectsCommand, Document
from designer.fileformat import FORMAT_VERSION, ProjectFileError, dumps, load, loads, save, to_dict
from designer.model import Hall, MountedDevice, Project, Rack, Rename
from tests.designer.test_fileformat import GOLDEN

HEAD = {"kind": "appliance", "name": "Storage head", "manufacturer": "ACME", "category": "storage",
        "source": "EST", "u_height": 2, "power_max_w": 800}


def _folder(path, entries):
    path.mkdir()
    for entry in entries:
        (path / f"{entry['id']}.json").write_text(json.dumps(entry))
    return path


@pytest.fixture
def before(tmp_path):
    """The user's catalog when the design was made: ``acme-head``."""
    return load_catalog([_folder(tmp_path / "v1", [{"id": "acme-head", **HEAD}])])


@pytest.fixture
def after(tmp_path):
    """The user's catalog since: the entry is ``acme-head-2`` (and draws more), and says it replaces the old id."""
    return load_catalog([_folder(tmp_path / "v2", [{"id": "acme-head-2", "replaces": ["acme-head"],
                                                    **HEAD, "power_max_w": 900}])])


def _design(catalog) -> Project:
    """Two racks holding three ACME heads, made through the commands as the window makes them."""
    hall = Hall("h", "Hall", ((0, 0), (8000, 0), (8000, 6000), (0, 6000)))
    racks = tuple(Rack(f"r{i}", f"R{i}", "h", "rack-48u-600x1200", 1000 + 1000 * i, 3000, 0.0, "A",
                       tuple(MountedDevice(f"r{i}-h{j}", "acme-head", 2 + 2 * j, "front", f"head-{i}{j}")
                             for j in range(i)))
                  for i in (1, 2))
    doc = Document(Project(name="Heads", halls=(hall,)), catalog)
    doc.push(AddObjectsCommand(racks=racks))
    return doc.project


def test_a_saved_file_says_which_podplanner_and_which_catalog_wrote_it(tmp_path, before):
    path = tmp_path / "heads.podplan.json"
    save(_design(before), path, catalog=before)
    doc = json.loads(path.read_text())
    assert doc["format_version"] == FORMAT_VERSION == 6
    assert doc["app_version"] == __version__
    assert doc["catalog_version"] == before.version
    assert before.version.startswith("2026.12+") and len(before.version.split("+")[1]) == 12
    # the same entries give the same version; another entry, another one
    assert load_catalog([tmp_path / "v1"]).version == before.version != load_catalog([]).version


def test_older_files_without_versions_open_and_gain_them_when_saved(catalog):
    doc = json.loads(GOLDEN.read_text())
    assert "catalog_version" not in doc and "app_version" not in doc and doc["format_version"] < FORMAT_VERSION
    project = load(GOLDEN, catalog)
    again = to_dict(project, catalog)
    assert again["catalog_version"] == catalog.version and again["app_version"] == __version__
    assert json.loads(dumps(project, catalog))["catalog_version"] == catalog.version
    assert loads(dumps(project, catalog), catalog) == project


def test_a_project_made_in_code_names_no_catalog_unless_given_one(catalog):
    project = Project(name="Bare")
    assert "catalog_version" not in to_dict(project)
    assert to_dict(project, catalog)["catalog_version"] == catalog.version


@pytest.mark.parametrize(("value", "reason"), [
    (5, "must be text"),
    ("", "must not be empty"),
    ("x" * 101, "must be one line of at most 100 printable characters"),
    ("2026.12\n+abc", "must be one line of at most 100 printable characters"),
])
def test_a_bad_version_stamp_is_refused_with_its_key(catalog, value, reason):
    doc = to_dict(load(GOLDEN, catalog))
    for key in ("catalog_version", "app_version"):
        bad = {**doc, key: value}
        with pytest.raises(ProjectFileError, match=f"^{key}: {reason}"):
            loads(json.dumps(bad), catalog)


def test_a_file_naming_a_renamed_id_opens_analyses_and_saves_with_the_new_id(tmp_path, before, after):
    old_file, new_file = tmp_path / "old.podplan.json", tmp_path / "new.podplan.json"
    save(_design(before), old_file, catalog=before)

    project = load(old_file, after)
    assert project.renames == (Rename("acme-head", "acme-head-2", 3, ("rack:r1", "rack:r2")),)
    assert [d.type for r in project.racks for d in r.devices] == ["acme-head-2"] * 3
    result = analyze(project, after)
    renamed = [f for f in result.findings if f.code == "catalog-renamed"]
    assert len(renamed) == 1
    f = renamed[0]
    assert f.severity == "info" and f.places == ("rack:r1", "rack:r2")
    assert "3 objects" in f.message and "'acme-head'" in f.message and "'acme-head-2'" in f.message
    assert result.summary_json["it_power_max_kw"] == pytest.approx(3 * 0.9)  # the new entry's figures

    save(project, new_file, catalog=after)
    text = new_file.read_text()
    assert '"acme-head-2"' in text and '"acme-head"' not in text
    assert json.loads(text)["catalog_version"] == after.version
    reopened = load(new_file, after)
    assert reopened == project and reopened.renames == ()
    assert not [f for f in analyze(reopened, after).findings if f.code == "catalog-renamed"]


def _renamed(project, catalog) -> list:
    return [f for f in analyze(project, catalog).findings if f.code == "catalog-renamed"]


def test_the_rename_is_said_until_the_design_is_saved_and_opened_again(tmp_path, before, after):
    path = tmp_path / "old.podplan.json"
    save(_design(before), path, catalog=before)
    doc = Document(load(path, after), after)
    assert len(_renamed(doc.project, after)) == 1
    # an edit keeps what the file went through: the file on disk still names the old id
    doc.push(AddObjectsCommand(racks=(Rack("r9", "R9", "h", "rack-48u-600x1200", 6000, 3000),)))
    assert len(_renamed(doc.project, after)) == 1
    assert json.loads(dumps(doc.project, after))["catalog_version"] == after.version
    doc.undo()  # the value the file opened as
    assert len(_renamed(doc.project, after)) == 1
    save(doc.project, path, catalog=after)
    assert _renamed(load(path, after), after) == []  # the saved file names the new id


def test_the_renames_are_part_of_the_value_not_of_its_identity(tmp_path, before, after):
    path = tmp_path / "old.podplan.json"
    save(_design(before), path, catalog=before)
    project = load(path, after)
    findings = _renamed(project, after)
    assert len(findings) == 1
    # a copy made by replace, or by pickling to a worker process, keeps them and analyses the same
    for copy in (replace(project, name="Heads 2"), project.with_settings(project.settings.updated(pue=1.5)),
                 pickle.loads(pickle.dumps(project))):
        assert copy.renames == project.renames
        assert _renamed(copy, after) == findings
    # two equal values opened from the same file analyse alike
    again = load(path, after)
    assert again == project and again is not project
    assert analyze(again, after).findings == analyze(project, after).findings
    # they are not part of the design: not compared, and not saved
    assert replace(project, renames=()) == project
    assert "renames" not in to_dict(project, after)


def test_a_saved_design_names_no_catalog_but_the_one_it_is_saved_with(tmp_path, before, after):
    # nothing about the value says which catalog wrote it: the caller's catalog does
    design = _design(before)
    assert "catalog_version" not in to_dict(design)
    assert to_dict(design, after)["catalog_version"] == after.version


def test_the_command_line_reports_the_rename(tmp_path, before, capsys):
    path = tmp_path / "old.podplan.json"
    save(_design(before), path)
    _folder(tmp_path / "v2_cli", [{"id": "acme-head-2", "replaces": ["acme-head"], **HEAD}])
    assert main(["--catalog", str(tmp_path / "v2_cli"), "analyze", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    renamed = [f for f in out["findings"] if f["code"] == "catalog-renamed"]
    assert len(renamed) == 1 and renamed[0]["where"] == "rack:r1" and "acme-head-2" in renamed[0]["message"]
    # a what-if setting on the command line analyses the same file: the rename is still said
    assert main(["--catalog", str(tmp_path / "v2_cli"), "analyze", str(path), "--json", "--pue", "1.5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in out["findings"]].count("catalog-renamed") == 1
