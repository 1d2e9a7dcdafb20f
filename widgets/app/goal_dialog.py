"""File ▸ New from a goal…: from "train this model on these tokens in so many days, within these caps" to ranked
options, how each moves with its assumptions, and any option opened as a design.

The form reads as a goal through the plan command's own check (a bad input is one line naming it, and nothing
runs). Find options sizes every allowed system × fabric with :func:`designer.goal.options.plan_goal` on the
:class:`~widgets.app.engine_runner.EngineRunner`'s worker thread, so the window stays live through the seconds a
search takes; a progress bar counts the options done. A goal changed while it runs makes the run stop after the
option it is on, and its result is dropped: the table only ever shows the goal on screen, or says it is older.

The table is the command's ranking; choosing a row shows why it binds and its sensitivity (two tornado charts).
Open design generates the chosen option with the goal's workload (on a second worker) and the window opens it as
a new, unsaved document; an option that cannot be built, or whose design has errors, cannot be opened, and says
why.
"""
from __future__ import annotations

from contextlib import suppress

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QFrame, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QProgressBar, QPushButton, QScrollArea, QSplitter,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from catalog import Catalog
from designer.goal.goal import GoalError, assumptions
from designer.formatting import count
from designer.goal.options import Option, build_option, not_buildable, plan_goal

from ..dashboards.sensitivity_chart import SensitivityChart
from . import style
from .engine_runner import EngineRunner
from .goal_form import FORM_MAX_WIDTH, GoalForm, short_name
from .new_superpod import ERROR_STYLE
from .superpod_preview import MUTED_STYLE

#: The form's labels for the inputs the goal check names by their command-line flag
FIELD_NAMES = {"--tokens": "Tokens", "--days": "Deadline", "--power-mw": "Power cap", "--budget": "Budget",
               "--power-basis": "Power cap", "--systems": "Systems", "--fabrics": "Fabrics", "model": "Model",
               "--failure-rate": "Failure rate", "--checkpoint-interval": "Checkpoint interval"}
COLUMNS = ("#", "System", "Fabric", "GPUs", "Plan", "MFU", "Days", "MW", "Racks", "Halls", "Capital",
           "$/M tok", "$/GPU-h", "Meets")
#: what each column holds, in full (the header's tooltip)
COLUMN_TIPS = ("Rank: options that meet the goal first, cheapest capital first", "System",
               "Fabric technology of the design", "GPUs in the design (whole scalable units)",
               "The best parallel plan: tensor, pipeline, data, context and expert parallel degrees",
               "Model FLOPs utilisation of the plan, against the GPU's dense BF16 peak (an FP8 or FP4 plan can pass "
               "100 %)", "Days to train, failures, restarts and checkpoints included",
               "Facility power, MW: IT at full load times the PUE", "Racks", "Data halls",
               "Capital: the bill of materials at the catalog's prices, millions of its currency",
               "Cost per million tokens trained",
               "Cost per GPU-hour (cost of ownership)", "Whether the option meets the goal, or the limit that binds")
FABRIC_TEXT = {"infiniband": "InfiniBand", "spectrum-x": "Spectrum-X", "roce": "RoCE", "ethernet": "Ethernet"}
MEETS_COLOUR = {"yes": "#E3F1E6", "no": "#FDF3E1", "invalid": "#EEF0F3"}


class _Superseded(Exception):
    """A newer goal was asked for (or the dialog closed): the run stops after the option it is on."""


class _Relay(QObject):
    """Carries the worker's progress to the dialog. Not the dialog's child: the worker's closure keeps it alive, so
    emitting never touches a deleted object (a dialog closed mid-search is disconnected from it by Qt)."""

    progressed = Signal(int, int, int)  # (revision, options done, options in all)


STALE = "For an earlier goal (press Find options for this one): "


def readable_text(text: str) -> str:
    """A message from the engines with the window's words for a command-line flag they name."""
    return text.replace("--precision", "the precision").replace("--software", "the software")


def readable_error(message: str) -> str:
    """A goal check's message with the form's label for the flag it names ("Deadline: …" for "--days: …")."""
    head, sep, rest = message.partition(": ")
    flag = head.split(" ")[0]  # "--power-mw 0.01": the flag and the value it was given
    return f"{FIELD_NAMES[flag]}{head[len(flag):]}: {rest}" if sep and flag in FIELD_NAMES else message


def plan_text(plan: dict) -> str:
    if not plan:
        return "-"
    text = f"TP{plan['tp']} PP{plan['pp']} DP{plan['dp']}"
    for key in ("cp", "ep"):
        if plan.get(key, 1) > 1:
            text += f" {key.upper()}{plan[key]}"
    return text


def row_cells(rank: int, o: Option, *, it_power: bool = False) -> list[str]:
    """The table's cells of option ``o`` at ``rank``, as shown (``it_power``: the power column is IT power, as the
    goal's cap holds it; else facility power)."""
    name = short_name(o.system_name or o.system)
    if o.preliminary:
        name += f" ({style.PRELIMINARY.lower()})"
    fabric = FABRIC_TEXT.get(o.fabric, o.fabric)
    if o.status != "ok":
        return [str(rank), name, fabric] + ["-"] * 10 + ["cannot be built"]

    def num(x, fmt: str) -> str:
        return "-" if x is None else format(x, fmt)

    return [str(rank), name, fabric, num(o.gpus, ","), plan_text(o.plan),
            "-" if o.mfu is None else f"{o.mfu * 100:.0f} %", num(o.days, ",.2f"),
            num(o.it_mw if it_power else o.facility_mw, ",.1f"),
            num(o.racks, ","), num(o.halls, "d"), "-" if o.capex is None else f"{o.capex / 1e6:,.1f}M",
            num(o.cost_per_million_tokens, ".2f"),
            num(o.cost_per_gpu_hour, ".2f"), "yes" if o.meets else f"no: {o.binding}"]


class GoalDialog(QDialog):
    """The goal on the left; the ranked options, the chosen one's sensitivity and the assumptions on the right."""

    #: Open design: the chosen option's project, to open as a new document.
    design_ready = Signal(object)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None, *, sync: bool = False):
        super().__init__(parent)
        self.catalog = catalog
        self.setWindowTitle("New from a goal")
        self.setSizeGripEnabled(True)
        #: the goal the table shows and its ranked options (None, [] until a search has finished)
        self.goal = None
        self.options: list[Option] = []
        #: the goal of the newest Find (the one running, or the one shown)
        self.asked = None
        self._revision = 0
        self._closing = False
        self.runner = EngineRunner(catalog, analyze_fn=self._plan, debounce_ms=0, parent=self, sync=sync)
        self.runner.finished.connect(self._on_options)
        self.runner.failed.connect(self._on_failed)
        self.runner.busy_changed.connect(self._on_busy)
        self.builder = EngineRunner(catalog, analyze_fn=_build, debounce_ms=0, parent=self, sync=sync)
        self.builder.finished.connect(self._on_built)
        self.builder.failed.connect(self._on_build_failed)
        self._relay = _Relay()
        self._relay.progressed.connect(self._on_progress)

        self.form = GoalForm(catalog)
        self.form.changed.connect(self._changed)
        scroll = QScrollArea()
        scroll.setWidget(self.form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(min(self.form.sizeHint().width() + 24, FORM_MAX_WIDTH))
        scroll.setMaximumWidth(FORM_MAX_WIDTH)
        left = QVBoxLayout()
        left.addWidget(scroll, 1)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(ERROR_STYLE)
        self.error_label.setVisible(False)
        left.addWidget(self.error_label)
        self.find_button = QPushButton("Find options")
        self.find_button.setDefault(True)
        self.find_button.setToolTip("Size every system and fabric ticked for this goal (a few seconds)")
        self.find_button.clicked.connect(self.find)
        left.addWidget(self.find_button)
        body = QHBoxLayout()
        body.addLayout(left, 0)
        body.addWidget(self._build_results(), 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Close)
        self.open_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.open_button.setText("Open design")
        self.open_button.setDefault(False)
        self.open_button.setAutoDefault(False)
        self.open_button.setEnabled(False)
        self.buttons.accepted.connect(self.open_design)
        self.buttons.rejected.connect(self.reject)
        outer = QVBoxLayout(self)
        outer.addLayout(body, 1)
        outer.addWidget(self.buttons)
        self.resize(1400, 860)
        self._changed()

    # -- building ------------------------------------------------------------------------------------
    def _build_results(self) -> QWidget:
        box = QGroupBox("Options")
        lay = QVBoxLayout(box)
        head = QHBoxLayout()
        self.summary_label = QLabel("Set the goal and press Find options.")
        self.summary_label.setWordWrap(True)
        font = self.summary_label.font()
        font.setBold(True)
        self.summary_label.setFont(font)
        head.addWidget(self.summary_label, 1)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(False)  # the summary beside it counts the options done
        self.progress.setVisible(False)
        head.addWidget(self.progress, 0, Qt.AlignmentFlag.AlignVCenter)
        lay.addLayout(head)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        for c, tip in enumerate(COLUMN_TIPS):
            self.table.horizontalHeaderItem(c).setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._on_selected)
        self.table.doubleClicked.connect(lambda _index: self.open_design())
        self.detail_label = QLabel()
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = SensitivityChart()
        lower = QWidget()
        lower_lay = QVBoxLayout(lower)
        lower_lay.setContentsMargins(0, 0, 0, 0)
        lower_lay.addWidget(self.detail_label)
        lower_lay.addWidget(self.chart, 1)
        self.assumptions_label = QLabel()
        self.assumptions_label.setWordWrap(True)
        self.assumptions_label.setStyleSheet(MUTED_STYLE)
        self.assumptions_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lower_lay.addWidget(self.assumptions_label)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 4)
        split.setChildrenCollapsible(False)
        lay.addWidget(split, 1)
        return box

    # -- the search ----------------------------------------------------------------------------------
    def _plan(self, job, catalog: Catalog):
        """Worker thread: the options of ``job``'s goal; stops between options once a newer goal is asked for."""
        revision, goal, relay, latest = job

        def progress(done: int, total: int) -> None:
            if latest() != revision:  # a newer goal was asked for, or the dialog closed
                raise _Superseded()
            relay.progressed.emit(revision, done, total)

        return revision, goal, plan_goal(goal, catalog, workers=1, progress=progress)

    def _checked_goal(self):
        """The goal on screen with its message shown when it is bad (None then, and Find is off)."""
        try:
            goal = self.form.goal()
        except GoalError as exc:
            self.error_label.setText(readable_error(str(exc)))
        else:
            self.error_label.clear()
        self.error_label.setVisible(bool(self.error_label.text()))
        self.find_button.setEnabled(not self.error_label.text())
        return None if self.error_label.text() else goal

    def _changed(self) -> None:
        """The form changed: check the goal at once (no search), and mark the table as another goal's."""
        goal = self._checked_goal()
        if self.asked is not None and goal != self.asked:
            self._mark_stale()

    def _mark_stale(self) -> None:
        """The form no longer holds the goal the table shows (or the search running is for): say so."""
        if self.asked is not None and not self.summary_label.text().startswith(STALE):
            self.summary_label.setText(STALE + self.summary_label.text())

    def _on_screen(self):
        """The goal on screen, or None when the form holds a bad one."""
        try:
            return self.form.goal()
        except GoalError:
            return None

    def find(self) -> None:
        """Size the goal on screen (a bad goal: its message, and nothing runs)."""
        goal = self._checked_goal()
        if goal is None:
            return
        self._revision += 1
        self.asked = goal
        total = len(goal.systems) * len(goal.fabrics)
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.summary_label.setText(f"Sizing every system and fabric for this goal: 0 of {count(total, 'option')} "
                                   f"done…")
        self.open_button.setEnabled(False)  # the options shown are about to be replaced
        self.runner.request(self._revision, (self._revision, goal, self._relay, self._latest))

    def _latest(self) -> int:
        """The revision a search still running should be for (-1 once the dialog is closing); read by the worker."""
        return -1 if self._closing else self._revision

    def _on_progress(self, revision: int, done: int, total: int) -> None:
        if revision == self._revision and self.runner.busy:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.summary_label.setText(f"Sizing every system and fabric for this goal: {done} of "
                                       f"{count(total, 'option')} done…")
            if self._on_screen() != self.asked:
                self._mark_stale()

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        if not busy:
            self._on_selected()  # Open design comes back for the option chosen

    def _on_failed(self, revision: int, message: str) -> None:
        if revision != self._revision or message.startswith("_Superseded"):
            return
        self.summary_label.setText(f"The search failed: {message}")

    def _on_options(self, revision: int, result) -> None:
        ran_for, goal, options = result
        if ran_for != self._revision:
            return
        self.goal, self.options = goal, list(options)
        meeting = sum(o.meets for o in options)
        wl = goal.workload_dict
        model = wl.get("model") or f"a {wl.get('params', 0) / 1e9:,.3g}B-parameter model"
        verdict = (f"{meeting} of {len(options)} options meet it" if meeting else
                   "no option meets it: the closest are first, with the limit that binds")
        self.summary_label.setText(f"{model} on {goal.tokens / 1e12:,.3g}T tokens in {goal.days:g} days: {verdict}")
        self.assumptions_label.setText("Assumptions: " + "; ".join(assumptions(goal)) + ".")
        self._fill_table()
        self.table.clearSelection()
        if options:
            self.table.selectRow(0)
        self._on_selected()  # selecting the row already selected says nothing: show the new first option
        if self._on_screen() != goal:  # the form changed while the search ran
            self._mark_stale()

    def _fill_table(self) -> None:
        it = self.goal is not None and self.goal.power_basis == "it"
        self.table.horizontalHeaderItem(7).setText("IT MW" if it else "MW")
        self.table.horizontalHeaderItem(7).setToolTip("IT power at full load, MW (the cap holds IT power)" if it
                                                      else COLUMN_TIPS[7])
        currency = next((o.currency for o in self.options if o.status == "ok"), "")
        self.table.horizontalHeaderItem(10).setText(f"Capital ({currency})" if currency else "Capital")
        self.table.setRowCount(len(self.options))
        for r, o in enumerate(self.options):
            cells = row_cells(r + 1, o, it_power=it)
            state = "invalid" if o.status != "ok" else ("yes" if o.meets else "no")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (0, 3) or 5 <= c <= 12:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c == len(cells) - 1:
                    item.setBackground(QColor(MEETS_COLOUR[state]))
                item.setToolTip(o.why or "meets the goal under every cap")
                self.table.setItem(r, c, item)

    # -- the chosen option ---------------------------------------------------------------------------
    def chosen(self) -> Option | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.options[rows[0].row()] if rows and rows[0].row() < len(self.options) else None

    def _on_selected(self) -> None:
        o = self.chosen()
        if o is None:
            self.detail_label.setText("")
            self.chart.clear()
            self.open_button.setEnabled(False)
            return
        self.detail_label.setText(self._detail(o))
        self.chart.show_option(o)
        problem = not_buildable(o)
        self.open_button.setEnabled(problem is None and not self.builder.busy and not self.runner.busy)
        self.open_button.setToolTip(f"This option {readable_text(problem)}" if problem else
                                    f"Generate {o.gpus:,} GPUs of {o.system_name} with the goal's workload and "
                                    "open it as a new, unsaved design")

    def _detail(self, o: Option) -> str:
        name = short_name(o.system_name or o.system)
        fabric = FABRIC_TEXT.get(o.fabric, o.fabric)
        if o.status != "ok":
            return f"{name} on {fabric} cannot be built: {readable_text(o.why)}"
        if o.sus is None:  # a cap with not one scalable unit under it
            return f"{name} on {fabric}: no size fits under the cap. Why not: {o.why}"
        head = f"{name} on {fabric}: {count(o.sus, 'scalable unit')}, {count(o.gpus, 'GPU')}"
        head += (f", plan {plan_text(o.plan)}; {o.days:,.2f} days" if o.days is not None else
                 ": no parallel plan fits the model in the GPUs' memory")
        if o.ettr is not None and o.compute_days is not None:
            head += f" ({o.compute_days:,.2f} of compute at {o.ettr:.1%} of the wall time training)"
        if o.preliminary:
            head += ". Preliminary: the system's figures are announced, not confirmed"
        return head + (f". Why not: {o.why}" if not o.meets and o.why else ".")

    # -- opening a design ----------------------------------------------------------------------------
    def open_design(self) -> None:
        o = self.chosen()
        if o is None or self.goal is None or not_buildable(o) is not None or self.builder.busy or self.runner.busy:
            return
        self.open_button.setEnabled(False)
        self.summary_label.setText(f"Generating {o.gpus:,} GPUs of {o.system_name}…")
        self.builder.request(self._revision, (self.goal, o))

    def _on_built(self, _revision: int, built: tuple) -> None:
        project = built[0]
        self._closing = True
        super().accept()
        self.design_ready.emit(project)

    def _on_build_failed(self, _revision: int, message: str) -> None:
        self.summary_label.setText(f"The design could not be generated: {message}")
        self._on_selected()

    def done(self, result: int) -> None:
        self._closing = True  # a search still going stops after the option it is on; its result is ignored
        with suppress(RuntimeError):
            self._relay.progressed.disconnect(self._on_progress)
        self.runner.shutdown(wait=False)
        self.builder.shutdown(wait=False)
        super().done(result)


def _build(job, catalog: Catalog) -> tuple:
    """Worker thread: the option's project, in a tuple (the runner would take a bare project's ``rack`` method for an
    analysis' per-rack lookup)."""
    goal, option = job
    return (build_option(goal, option, catalog),)


def start(window) -> GoalDialog | None:
    """File ▸ New from a goal…: offer to save unsaved changes (as File ▸ New does), then show the dialog; the
    design opened from it is a new, unsaved document."""
    if not window.files.maybe_save():
        return None
    dialog = GoalDialog(window.catalog, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def adopt(project) -> None:
        window.adopt_project(project, None, dirty=True)
        window.statusBar().showMessage(f"Generated {project.name} from the goal: not saved yet (File ▸ Save keeps "
                                       "it)", 10000)

    dialog.design_ready.connect(adopt)
    window.goal_dialog = dialog
    dialog.open()
    return dialog
