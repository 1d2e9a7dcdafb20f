"""The bar above the plan that says the open file changed on disk, and offers what to do about it.

Not a dialog: a change made by another program while the user works need not stop the work. Save asks
for itself (:meth:`~widgets.app.file_actions.FileController.save`), so a dismissed bar overwrites nothing.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout

from . import style
from .disk_state import DiskState, describe


class DiskChangeBar(QFrame):
    """Hidden until :meth:`show_state` reports a file changed, deleted or of unknown content."""

    #: Open the file as it is on disk (the window's unsaved changes are lost).
    reload_requested = Signal()
    #: Keep the window's design under another name.
    save_as_requested = Signal()
    #: Save the window's design to the file (offered when the file is gone).
    save_requested = Signal()
    #: This design beside the file on disk.
    compare_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("disk_change_bar")
        self.state = DiskState.SAME
        warn = style.SEVERITY["warning"]
        self.setStyleSheet(f"#disk_change_bar {{ background: {_tint(warn, 0.16).name()}; "
                           f"border-bottom: 2px solid {warn.name()}; }}")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setStyleSheet("font-weight: 600;")
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.reload_button = QPushButton("Reload")
        self.compare_button = QPushButton("Compare…")
        self.save_as_button = QPushButton("Save mine as…")
        self.save_button = QPushButton("Save")
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setToolTip("Hide this bar; Save still asks before writing over the file.")
        self.reload_button.clicked.connect(self.reload_requested)
        self.compare_button.clicked.connect(self.compare_requested)
        self.save_as_button.clicked.connect(self.save_as_requested)
        self.save_button.clicked.connect(self.save_requested)
        self.dismiss_button.clicked.connect(self.hide)
        # The sentence on a line of its own, the choices under it: the centre may be narrow between docks.
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 6, 10, 6)
        column.setSpacing(4)
        top = QHBoxLayout()
        icon = QLabel("⚠")
        icon.setStyleSheet(f"color: {warn.darker(130).name()}; font-size: 15px; font-weight: 700;")
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        top.addWidget(icon)
        top.addWidget(self.label, 1)
        column.addLayout(top)
        row = QHBoxLayout()
        row.addStretch(1)
        for button in (self.reload_button, self.compare_button, self.save_as_button, self.save_button,
                       self.dismiss_button):
            row.addWidget(button)
        column.addLayout(row)
        self.hide()

    def show_state(self, state: DiskState, name: str, *, edited: bool) -> None:
        """Show what happened to ``name`` on disk (hide on :attr:`DiskState.SAME`)."""
        self.state = state
        if state is DiskState.SAME:
            self.hide()
            return
        self.label.setText(describe(state, name, edited=edited))
        on_disk = state is not DiskState.MISSING
        self.reload_button.setVisible(on_disk)
        self.reload_button.setText("Discard mine and reload" if edited else "Reload")
        self.reload_button.setToolTip("Open the file as it is on disk" + (
            "; the changes made in this window are lost (a copy stays in File ▸ Recover for a week)."
            if edited else "."))
        self.compare_button.setVisible(on_disk)
        self.save_as_button.setVisible(edited or not on_disk)
        self.save_button.setVisible(not on_disk)
        self.show()


def _tint(colour: QColor, share: float) -> QColor:
    """``colour`` at ``share`` over white: a pale background that keeps black text readable."""
    return QColor(*(round(255 - (255 - c) * share) for c in (colour.red(), colour.green(), colour.blue())))
