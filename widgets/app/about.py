"""Help ▸ About PodPlanner: the version, where the catalog's figures come from, the bundled libraries' licences.

What the dialog shows is gathered by plain functions (:func:`about_facts`,
:func:`catalog_sources`, :func:`library_licences`), so tests read the same
values the user sees. Licences are read from each installed package's own
metadata and never guessed: a package whose metadata states none says so, and in
a packaged app a package whose metadata was not bundled says that.
"""
from __future__ import annotations

import html
import platform
import re
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

import PySide6
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QFormLayout, QHeaderView, QLabel,
                               QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from catalog import Catalog
from designer import __version__

from . import error_log
from .file_actions import default_recovery_dir

#: pyproject.toml's ``description`` (tests keep the two equal): a packaged app has no project metadata to read it from.
DESCRIPTION = ("Design AI datacenters: lay out DGX SuperPODs and GB200 NVL72 halls, check power, cooling and fabric, "
               "export a quote.")

#: pyproject.toml's runtime ``dependencies``, by distribution name (tests keep the two equal): a packaged app
#: has no metadata of PodPlanner itself to list them from.
RUNTIME_DEPENDENCIES = ("PySide6-Essentials", "pyqtgraph", "shapely", "numpy", "reportlab", "PyYAML", "orjson",
                        "openpyxl", "ezdxf", "pypdfium2", "svglib")

NOT_BUNDLED = "metadata not bundled"
NO_LICENCE = "the package's metadata states no licence"


class Library(NamedTuple):
    name: str
    version: str  # "" when the metadata is not there
    licence: str


class SourceRow(NamedTuple):
    id: str
    title: str
    url: str
    figures: int
    unconfirmed: int


# -- libraries --------------------------------------------------------------------
def licence_of(meta) -> str:
    """The licence a distribution's metadata states: License-Expression, else a one-line License field,
    else its "License ::" classifiers; :data:`NO_LICENCE` when none of them says anything."""
    expression = (meta.get("License-Expression") or "").strip()
    if expression:
        return expression
    field = (meta.get("License") or "").strip()
    classifiers = [c.split("::")[-1].strip() for c in (meta.get_all("Classifier") or [])
                   if c.startswith("License ::") and c.split("::")[-1].strip()]
    if field and "\n" not in field:
        return field
    if classifiers:
        return ", ".join(dict.fromkeys(classifiers))
    if field:
        # the whole licence text pasted into the field: its first line names it
        return field.splitlines()[0].strip()
    return NO_LICENCE


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _runtime_requirements(dist) -> list[tuple[str, bool]]:
    """What ``dist`` needs at run time here, extras left out: (name, certain). ``certain`` is False for a
    requirement under an environment marker that could not be evaluated (no ``packaging`` to read it)."""
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:
        Requirement = None
    out = []
    for text in dist.requires or []:
        if Requirement is not None:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            out.append((req.name, True))
            continue
        name, _, marker = text.partition(";")
        if "extra" in marker:
            continue
        match = _REQUIREMENT.match(name)
        if match:
            out.append((match.group(1), not marker.strip()))
    return out


def library_licences(names: tuple[str, ...] = RUNTIME_DEPENDENCIES) -> list[Library]:
    """Each of ``names``, then what they need in turn, with version and licence.

    A distribution whose metadata is not there gives ``(name, "", NOT_BUNDLED)``, except one needed
    only under an environment marker that could not be evaluated: that one may not be needed here.
    """
    out: list[Library] = []
    seen: set[str] = set()
    queue = [(name, True, True) for name in names]
    while queue:
        name, direct, certain = queue.pop(0)
        key = _normal(name)
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
            meta = dist.metadata
        except Exception:  # noqa: BLE001 - missing or unreadable metadata must not stop the dialog
            if certain:
                out.append(Library(name, "", NOT_BUNDLED))
            continue
        shown = name if direct else (meta.get("Name") or name)  # direct ones as pyproject.toml names them
        out.append(Library(shown, dist.version or "", licence_of(meta)))
        queue.extend((req, False, sure) for req, sure in _runtime_requirements(dist))
    return out


# -- catalog ----------------------------------------------------------------------
def catalog_sources(catalog: Catalog) -> list[SourceRow]:
    """Every source of the catalog in its own order, with how many figures cite it and how many are unconfirmed.

    A source that an entry declares for itself (not in the shared list) is listed after the others.
    """
    cited, unconfirmed, declared_in = Counter(), Counter(), {}
    for device in catalog:
        for figure in device.figures.values():
            cited[figure.source] += 1
            unconfirmed[figure.source] += figure.unconfirmed
            declared_in.setdefault(figure.source, device.id)
    rows = [SourceRow(s.id, s.title, s.url, cited[s.id], unconfirmed[s.id]) for s in catalog.sources.values()]
    for sid in sorted(set(cited) - set(catalog.sources)):
        rows.append(SourceRow(sid, f"declared in the catalog entry {declared_in[sid]}", "", cited[sid],
                              unconfirmed[sid]))
    return rows


def catalog_summary(catalog: Catalog, rows: list[SourceRow] | None = None) -> str:
    rows = catalog_sources(catalog) if rows is None else rows
    figures = sum(r.figures for r in rows)
    unconfirmed = sum(r.unconfirmed for r in rows)
    return (f"{len(catalog)} device types with {figures:,} sourced figures, {len(rows)} sources; "
            f"{unconfirmed:,} of the figures are unconfirmed (found in no vendor source).")


# -- the facts --------------------------------------------------------------------
def about_facts(recovery_dir: Path | None = None) -> list[tuple[str, str]]:
    """(label, value) lines of the About page: version, runtime, and the folders a support request asks for."""
    facts = [
        ("Version", __version__),
        ("Python", platform.python_version()),
        ("Qt", f"{qVersion()} (PySide6 {PySide6.__version__})"),
        ("Platform", platform.platform()),
        ("Log file", str(error_log.log_path())),
        ("Autosave and recovery", str(recovery_dir or default_recovery_dir())),
    ]
    note = error_log.fallback_note()
    if note:
        facts.insert(5, ("Log note", note))
    return facts


def about_text_parts(catalog: Catalog, recovery_dir: Path | None = None) -> dict[str, object]:
    """Everything the dialog shows, as data: title, version, description, facts, sources, libraries."""
    rows = catalog_sources(catalog)
    return {
        "title": "PodPlanner",
        "version": __version__,
        "description": DESCRIPTION,
        "facts": about_facts(recovery_dir),
        "catalog_summary": catalog_summary(catalog, rows),
        "sources": rows,
        "libraries": library_licences(),
    }


# -- the dialog -------------------------------------------------------------------
def _with_folder_link(path: str, folder: Path) -> str:
    url = bytes(QUrl.fromLocalFile(str(folder)).toEncoded()).decode("ascii")
    return f'{html.escape(path)} &nbsp;<a href="{html.escape(url)}">open folder</a>'


def _table(headers: list[str], rows: list[list[str]], stretch: int,
           fixed: dict[int, int] | None = None) -> QTableWidget:
    """A read-only table; column ``stretch`` takes the spare width, ``fixed`` columns start at a set width."""
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    table.setTextElideMode(Qt.TextElideMode.ElideRight)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            if text.isdigit():
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)
    header = table.horizontalHeader()
    for c in range(len(headers)):
        if c == stretch:
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
        elif fixed and c in fixed:
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(c, fixed[c])
        else:
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
    return table


class AboutDialog(QDialog):
    def __init__(self, catalog: Catalog, parent: QWidget | None = None, *, recovery_dir: Path | None = None):
        super().__init__(parent)
        self.setWindowTitle("About PodPlanner")
        self.resize(960, 600)
        self.parts = about_text_parts(catalog, recovery_dir)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._about_page(), "About")
        sources = self.parts["sources"]
        self.sources_table = _table(
            ["Source", "Title", "Link", "Figures", "Unconfirmed"],
            [[s.id, s.title, s.url, str(s.figures), str(s.unconfirmed)] for s in sources], stretch=1,
            fixed={2: 260})
        self.sources_table.cellDoubleClicked.connect(self._open_link)
        self.tabs.addTab(self._page(f"{self.parts['catalog_summary']} Double-click a source to open its link.",
                                    self.sources_table), "Catalog sources")
        libraries = self.parts["libraries"]
        self.libraries_table = _table(["Library", "Version", "Licence"],
                                      [[lib.name, lib.version or "—", lib.licence] for lib in libraries], stretch=2)
        self.tabs.addTab(self._page("The libraries bundled with PodPlanner, each with the licence its own package "
                                    "metadata states. Their licence texts are in each package's distribution.",
                                    self.libraries_table), "Libraries and licences")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)

    def _about_page(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(18, 16, 18, 12)
        title = QLabel(f"<span style='font-size:20px; font-weight:600'>PodPlanner</span>"
                       f"&nbsp;&nbsp;<span style='font-size:14px'>version {self.parts['version']}</span>")
        self.title_label = title
        description = QLabel(self.parts["description"])
        description.setWordWrap(True)
        box.addWidget(title)
        box.addWidget(description)
        box.addSpacing(10)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.fact_labels: dict[str, QLabel] = {}
        for label, value in self.parts["facts"]:
            if label == "Version":
                continue  # already in the title line
            if label == "Log file":
                shown = QLabel(_with_folder_link(value, Path(value).parent))
            elif label == "Autosave and recovery":
                shown = QLabel(_with_folder_link(value, Path(value)))
            else:
                shown = QLabel(html.escape(value))
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
            shown.setOpenExternalLinks(True)
            shown.setWordWrap(True)
            form.addRow(f"{label}:", shown)
            self.fact_labels[label] = shown
        box.addLayout(form)
        box.addSpacing(10)
        catalog = QLabel(f"Catalog: {self.parts['catalog_summary']} The sources are listed under Catalog sources.")
        catalog.setWordWrap(True)
        box.addWidget(catalog)
        box.addSpacing(6)
        support = QLabel("When something goes wrong, the log file says what ran and what failed: "
                         "please send it with your report.")
        support.setWordWrap(True)
        box.addWidget(support)
        box.addStretch(1)
        return page

    def _open_link(self, row: int, _column: int) -> None:
        url = self.parts["sources"][row].url
        if url:
            QDesktopServices.openUrl(QUrl(url))

    @staticmethod
    def _page(intro: str, table: QTableWidget) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        label = QLabel(intro)
        label.setWordWrap(True)
        box.addWidget(label)
        box.addWidget(table, 1)
        return page


def show_about(window) -> AboutDialog:
    """Open the About dialog over ``window`` (window-modal, not blocking, so the caller and tests go on)."""
    files = getattr(window, "files", None)
    dialog = AboutDialog(window.catalog, window, recovery_dir=getattr(files, "recovery_dir", None))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
