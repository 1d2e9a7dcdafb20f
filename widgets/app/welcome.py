"""The first-start overlay: what a new user can do, in seven lines, over the window.

People who open PodPlanner once a quarter (sales, facilities) should not have to
find the workspaces, the heat map or the SuperPOD generator by reading every
menu. The overlay covers the window below its menu bar, so the menus stay usable
(the central area alone is too narrow for the card once the docks are open);
"Got it" or Esc dismisses it, and the window's settings remember that, so it
appears on the first start only, and again from Help ▸ Show what you can do.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (QFrame, QGraphicsDropShadowEffect, QGridLayout, QHBoxLayout, QLabel, QMainWindow,
                               QPushButton, QVBoxLayout, QWidget)

from . import style

#: Settings key: true once the user dismissed the overlay.
DISMISSED_KEY = "welcome/dismissed"

#: (what, how, keys): one line each; keys are shown as key caps, "" when there is no shortcut.
TIPS: tuple[tuple[str, str, str], ...] = (
    ("Lay out", "Drag racks and systems from the Catalog onto the floor plan.", ""),
    ("Inspect", "Click a rack to see its elevation, power draw and cooling.", ""),
    ("Switch work", "View ▸ Workspace: Layout, Power & cooling, Network or Quote.", "Alt+1 … 4"),
    ("Heat map", "Colour the racks by power, power chain or air density.", "Ctrl+H"),
    ("Generate", "File ▸ New SuperPOD… builds a design from a GPU count; New from a goal… from a training goal.",
     ""),
    ("Export", "File ▸ Export: the quote as PDF or XLSX, the plan as DXF, NetBox files.", ""),
    ("Check", "Findings list what is wrong; click one to go to it on the plan.", ""),
)

#: The backdrop dims the plan enough to read the card, not so much that the design disappears.
BACKDROP = QColor(24, 32, 44, 96)
CARD_MAX_WIDTH = 600
MARGIN = 24

_CARD_STYLE = f"""
QFrame#welcomeCard {{ background: #FFFFFF; border: 1px solid #D5DAE1; border-radius: 10px; }}
QLabel {{ background: transparent; border: none; color: {style.TEXT.name()}; }}
QLabel#welcomeTitle {{ font-size: 18px; font-weight: 600; }}
QLabel#welcomeLead, QLabel#welcomeFoot {{ color: {style.MUTED_TEXT.name()}; }}
QLabel#welcomeWhat {{ font-weight: 600; }}
QLabel#welcomeKeys {{ background: #F2F4F7; border: 1px solid #D5DAE1; border-radius: 4px; padding: 1px 6px;
                      color: {style.MUTED_TEXT.name()}; font-size: 11px; }}
QPushButton#welcomeOk {{ background: {style.ACCENT.name()}; color: #FFFFFF; border: none; border-radius: 5px;
                         padding: 6px 22px; font-weight: 600; }}
QPushButton#welcomeOk:hover {{ background: {style.ACCENT.darker(115).name()}; }}
QPushButton#welcomeOk:focus {{ outline: none; }}
"""


def was_dismissed(settings) -> bool:
    return bool(settings.value(DISMISSED_KEY, False, type=bool))


class WelcomeOverlay(QWidget):
    """A dimmed layer over ``window`` below its menu bar, a card of :data:`TIPS` in its middle; follows the
    window's size."""

    dismissed = Signal()

    def __init__(self, window: QMainWindow, settings):
        super().__init__(window)
        self.setObjectName("welcomeOverlay")
        self._window = window
        self._settings = settings
        self.card = self._build_card()
        # Esc reaches the overlay wherever focus is in the window (a dock, the plan behind), only while it shows.
        self._escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self._escape.setContext(Qt.ShortcutContext.WindowShortcut)
        self._escape.activated.connect(self.dismiss)
        self._escape.setEnabled(False)
        window.installEventFilter(self)
        window.menuBar().installEventFilter(self)
        self.hide()

    def _build_card(self) -> QFrame:
        card = QFrame(self)
        card.setObjectName("welcomeCard")
        card.setStyleSheet(_CARD_STYLE)
        shadow = QGraphicsDropShadowEffect(card)
        shadow.setBlurRadius(28)
        shadow.setOffset(0, 6)
        shadow.setColor(QColor(0, 0, 0, 70))
        card.setGraphicsEffect(shadow)
        box = QVBoxLayout(card)
        box.setContentsMargins(28, 24, 28, 20)
        box.setSpacing(6)
        title = QLabel("Welcome to PodPlanner")
        title.setObjectName("welcomeTitle")
        lead = QLabel("Here is what you can do:")
        lead.setObjectName("welcomeLead")
        box.addWidget(title)
        box.addWidget(lead)
        box.addSpacing(8)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(9)
        grid.setColumnStretch(1, 1)
        self.tip_labels: list[QLabel] = []
        for row, (what, how, keys) in enumerate(TIPS):
            what_label = QLabel(what)
            what_label.setObjectName("welcomeWhat")
            how_label = QLabel(how)
            how_label.setWordWrap(True)
            self.tip_labels.append(how_label)
            # The key cap goes under the heading, so the sentences keep the card's full width.
            head = QVBoxLayout()
            head.setSpacing(3)
            head.addWidget(what_label)
            if keys:
                key_label = QLabel(keys)
                key_label.setObjectName("welcomeKeys")
                head.addWidget(key_label, 0, Qt.AlignmentFlag.AlignLeft)
            grid.addLayout(head, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(how_label, row, 1, Qt.AlignmentFlag.AlignTop)
        box.addLayout(grid)
        box.addSpacing(14)
        foot = QHBoxLayout()
        hint = QLabel("Help ▸ Show what you can do brings this back.")
        hint.setObjectName("welcomeFoot")
        hint.setWordWrap(True)
        self.ok_button = QPushButton("Got it")
        self.ok_button.setObjectName("welcomeOk")
        self.ok_button.setDefault(True)
        self.ok_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.ok_button.clicked.connect(self.dismiss)
        foot.addWidget(hint, 1)
        foot.addWidget(self.ok_button, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        box.addLayout(foot)
        return card

    # -- showing ----------------------------------------------------------------
    def present(self) -> None:
        self._fit()
        self.show()
        self.raise_()
        self._escape.setEnabled(True)
        self.ok_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def dismiss(self) -> None:
        if not self.isVisible():
            return
        self._escape.setEnabled(False)
        self.hide()
        self._settings.setValue(DISMISSED_KEY, True)
        self._settings.sync()
        self.dismissed.emit()

    def area(self) -> QRect:
        """The window below its menu bar (all of it where the menu bar is the system's, outside the window)."""
        rect = self._window.rect()
        bar = self._window.menuWidget()
        if bar is not None and bar.isVisible() and bar.parentWidget() is self._window:
            rect.setTop(bar.geometry().bottom() + 1)
        return rect

    def _fit(self) -> None:
        self.setGeometry(self.area())
        room_w = max(0, self.width() - 2 * MARGIN)
        room_h = max(0, self.height() - 2 * MARGIN)
        width = min(CARD_MAX_WIDTH, room_w)
        layout = self.card.layout()
        height = layout.heightForWidth(width) if layout.hasHeightForWidth() else layout.sizeHint().height()
        height = min(max(height, layout.minimumSize().height()), room_h) if room_h else height
        self.card.setGeometry(QRect((self.width() - width) // 2, (self.height() - height) // 2, width, height))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and self.isVisible():
            self._fit()
        return super().eventFilter(watched, event)

    # -- the backdrop -------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), BACKDROP)

    def mousePressEvent(self, event) -> None:
        # The plan behind is not edited by a click meant for the card.
        event.accept()

    def wheelEvent(self, event) -> None:
        event.accept()


def overlay_of(window) -> WelcomeOverlay | None:
    """The window's overlay, if one was made (shown or not)."""
    for child in window.children():
        if isinstance(child, WelcomeOverlay):
            return child
    return None


def show_welcome(window) -> WelcomeOverlay:
    """Show the overlay over ``window`` below its menu bar, whether or not it was dismissed before."""
    overlay = overlay_of(window) or WelcomeOverlay(window, window.settings)
    overlay.present()
    return overlay


def show_on_first_start(window) -> WelcomeOverlay | None:
    """Show the overlay when this is the first start (no saved window layout) and it was never dismissed."""
    if not getattr(window, "first_start", False) or was_dismissed(window.settings):
        return None
    return show_welcome(window)
