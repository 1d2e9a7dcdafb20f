"""File ▸ New SuperPOD…: the generator's options, a live preview of the key numbers, and OK opens the design.

Every change to the form asks for a preview: after a quiet time the generator
and the analysis run on the :class:`~widgets.app.engine_runner.EngineRunner`'s worker
thread (the same debounced, single-worker, stale-dropping runner the main window
uses for its engines), so a 100,000-GPU target never freezes the dialog. Each
request carries a rising number; a result older than the newest request is
dropped, so an earlier target's numbers never replace a later one's.

A target the generator refuses shows its message (and, when it is too big for
the hall, the nearest size that fits, found in the worker too) and disables OK.
OK takes the preview's design for the inputs on screen (waiting for the worker
when it is still computing) and the window opens it as a new, unsaved document.
"""
from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFrame, QGroupBox, QHBoxLayout, QLabel, QPlainTextEdit,
                               QProgressBar, QPushButton, QScrollArea, QVBoxLayout, QWidget)

from catalog import Catalog
from designer.formatting import count
from designer.generate import Generated

from .engine_runner import EngineRunner
from .superpod_form import SuperpodForm
from .superpod_preview import FITTED, MAX_SUS, MUTED_STYLE, Preview, compute_preview, readable

__all__ = ["DEBOUNCE_MS", "ERROR_STYLE", "FITTED", "MAX_SUS", "MUTED_STYLE", "NewSuperpodDialog", "Preview",
           "compute_preview", "readable", "start"]

DEBOUNCE_MS = 250
ERROR_STYLE = ("QLabel { color: #8B1A1A; background: #FDECEC; border: 1px solid #E3A5A5; border-radius: 4px;"
               " padding: 8px; }")


# -- the dialog ------------------------------------------------------------------------------------------
class NewSuperpodDialog(SuperpodForm, QDialog):
    """The generator's options on the left, the design's key numbers on the right; OK hands the design over."""

    #: OK: the generated project, to open as a new document.
    design_ready = Signal(object)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None, *, debounce_ms: int = DEBOUNCE_MS):
        super().__init__(parent)
        self.catalog = catalog
        self.setWindowTitle("New SuperPOD")
        self.setSizeGripEnabled(True)
        #: The design OK accepted (None until then).
        self.generated: Generated | None = None
        #: The newest preview shown (a design or a refusal), for the inputs it was computed for.
        self.preview: Preview | None = None
        self._revision = 0
        self._accept_when_ready = False
        self.runner = EngineRunner(catalog, analyze_fn=compute_preview, debounce_ms=debounce_ms, parent=self)
        self.runner.finished.connect(self._on_preview)
        self.runner.failed.connect(self._on_failed)
        self.runner.busy_changed.connect(self._on_busy)

        form = self._build_form()
        scroll = QScrollArea()
        scroll.setWidget(form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(form.sizeHint().width() + 24)
        body = QHBoxLayout()
        body.addWidget(scroll, 0)
        body.addWidget(self._build_preview(), 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Open design")
        self.ok_button.setToolTip("Open the generated design in the window as a new, unsaved project")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        outer = QVBoxLayout(self)
        outer.addLayout(body, 1)
        outer.addWidget(self.buttons)
        self.resize(1180, 800)
        self._on_system()
        self._changed()

    # -- building ------------------------------------------------------------------------------------
    def _build_preview(self) -> QWidget:
        box = QGroupBox("Preview")
        lay = QVBoxLayout(box)
        head = QHBoxLayout()
        self.title_label = QLabel()
        self.title_label.setWordWrap(True)
        font = self.title_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title_label.setFont(font)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        head.addWidget(self.title_label, 1)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumWidth(90)
        self.busy_bar.setMaximumHeight(12)
        self.busy_bar.setVisible(False)
        head.addWidget(self.busy_bar, 0, Qt.AlignmentFlag.AlignVCenter)
        self.status_label = QLabel()
        self.status_label.setStyleSheet(MUTED_STYLE)
        head.addWidget(self.status_label, 0, Qt.AlignmentFlag.AlignVCenter)
        lay.addLayout(head)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(ERROR_STYLE)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setVisible(False)
        lay.addWidget(self.error_label)
        self.nearest_button = QPushButton()
        self.nearest_button.setVisible(False)
        self.nearest_button.clicked.connect(self._use_nearest)
        lay.addWidget(self.nearest_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.preview_view = QPlainTextEdit()
        self.preview_view.setReadOnly(True)
        self.preview_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.preview_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.preview_view.setFrameShape(QFrame.Shape.NoFrame)
        lay.addWidget(self.preview_view, 1)
        return box

    # -- reading the form ----------------------------------------------------------------------------
    def preview_text(self) -> str:
        """Everything the preview shows, as plain text (title, status, message, numbers)."""
        parts = [self.title_label.text(), self.status_label.text()]
        if self.error_label.isVisibleTo(self):
            parts.append(self.error_label.text())
        parts.append(self.preview_view.toPlainText())
        return "\n".join(p for p in parts if p)

    # -- reacting ------------------------------------------------------------------------------------
    def _changed(self, *_args) -> None:
        """The form changed: ask for a preview of it (debounced; older previews will be dropped)."""
        self._accept_when_ready = False
        self._revision += 1
        self.nearest_button.setVisible(False)  # its answer was for the inputs before this change
        self.runner.request(self._revision, self.spec())
        self._set_ok()

    def _on_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        self.status_label.setText("computing…" if busy else "")
        self.preview_view.setEnabled(not busy)  # greyed: the numbers shown are for earlier inputs

    def _on_preview(self, revision: int, preview: Preview) -> None:
        if revision != self._revision:
            return
        self.preview = preview
        self._show(preview)
        if self._accept_when_ready:
            self._accept_when_ready = False
            if preview.ok and preview.spec == self.spec():
                self._finish(preview)
                return
        self._set_ok()

    def _on_failed(self, revision: int, message: str) -> None:
        """The generator or an engine failed in a way it should not (a bug): one line, never a traceback."""
        if revision != self._revision:
            return
        self._accept_when_ready = False
        self.preview = Preview(self.spec(), error=f"The preview failed: {message}")
        self._show(self.preview)
        self._set_ok()

    def _show_built(self, preview: Preview) -> None:
        """The size fields say what the preview builds: the field not typed in shows the built count, and a
        GPU count the generator rounds says so beside it (1,024 asked, 1,016 built)."""
        if not preview.ok:
            self.gpus_built.setText("")
            self.gpus_built.setVisible(False)
            return
        g = preview.generated
        idle = self.sus_spin if self.gpus_radio.isChecked() else self.gpus_spin
        idle.blockSignals(True)  # showing what is built is not a change of the target
        idle.setValue(g.sus if idle is self.sus_spin else g.gpus)
        idle.blockSignals(False)
        asked = preview.spec.gpus
        if asked is not None and asked != g.gpus:
            self.gpus_built.setText(f"builds {count(g.gpus, 'GPU')}, not {asked:,} (see the notes)")
            self.gpus_built.setToolTip("\n".join(g.notes) or "rounded to whole systems and scalable units")
        else:
            self.gpus_built.setText("")
            self.gpus_built.setToolTip("")
        self.gpus_built.setVisible(bool(self.gpus_built.text()))

    def _show(self, preview: Preview) -> None:
        self._show_built(preview)
        if not preview.ok:
            self.title_label.setText("This target cannot be built")
            text = readable(preview.error or "", self.catalog).rstrip(".") + "."
            if preview.fit:
                if preview.nearest is not None:
                    sus, gpus = preview.nearest
                    text += f"\nThe nearest that fits: {count(sus, 'scalable unit')} ({count(gpus, 'GPU')})."
                    self.nearest_button.setText(f"Use {count(sus, 'scalable unit')}")
                else:
                    text += "\nNot even one scalable unit fits."
            self.error_label.setText(text)
            self.error_label.setVisible(True)
            self.nearest_button.setVisible(preview.fit and preview.nearest is not None)
            self.preview_view.setPlainText("")
            return
        self.error_label.setVisible(False)
        self.nearest_button.setVisible(False)
        g = preview.generated
        self.title_label.setText(g.project.name)
        out = list(preview.lines)
        if preview.notes:
            out += ["", "Notes:"] + [f"• {readable(n, self.catalog)}" for n in preview.notes]
        phase = preview.spec.phase_sus
        if phase:
            phases = math.ceil(g.sus / phase)
            out += ["", (f"Phases: {count(phases, 'phase')} of up to {count(phase, 'scalable unit')}; the window "
                         "opens the final design (the command line writes one file per phase)")]
        self.preview_view.setPlainText("\n".join(out))

    def _set_ok(self) -> None:
        """OK is off while the inputs on screen are known not to build (or OK is waiting for the worker)."""
        refused = self.preview is not None and not self.preview.ok and self.preview.spec == self.spec()
        self.ok_button.setEnabled(not refused and not self._accept_when_ready)

    def _use_nearest(self) -> None:
        if self.preview is None or self.preview.nearest is None:
            return
        self.sus_spin.setValue(self.preview.nearest[0])
        self.sus_radio.setChecked(True)

    # -- OK -----------------------------------------------------------------------------------------
    def accept(self) -> None:
        spec = self.spec()
        ready = self.preview
        if ready is not None and ready.spec == spec and not self.runner.busy:
            if ready.ok:
                self._finish(ready)
            return  # a refusal: OK is disabled, and Enter does nothing either
        if self.runner.busy:  # the worker is on it: open when its result comes
            self._accept_when_ready = True
            self.status_label.setText("computing… the design opens when ready")
            self._set_ok()
            return
        preview = compute_preview(spec, self.catalog)  # nothing ready nor coming (should not happen)
        self.preview = preview
        self._show(preview)
        if preview.ok:
            self._finish(preview)
        else:
            self._set_ok()

    def _finish(self, preview: Preview) -> None:
        self.generated = preview.generated
        self.runner.shutdown(wait=False)
        super().accept()
        self.design_ready.emit(preview.generated.project)

    def done(self, result: int) -> None:
        self.runner.shutdown(wait=False)  # a run still going finishes on its own; its result is ignored
        super().done(result)


def start(window) -> NewSuperpodDialog | None:
    """File ▸ New SuperPOD…: offer to save unsaved changes (as File ▸ New does), then show the dialog;
    its design opens as a new, unsaved document."""
    if not window.files.maybe_save():
        return None
    dialog = NewSuperpodDialog(window.catalog, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def adopt(project) -> None:
        # Unsaved work, not a clean sample: closing asks to save it, and autosave keeps a recovery copy.
        window.adopt_project(project, None, dirty=True)
        window.statusBar().showMessage(f"Generated {project.name}: not saved yet (File ▸ Save keeps it)", 10000)

    dialog.design_ready.connect(adopt)
    window.new_superpod_dialog = dialog
    dialog.open()
    return dialog
