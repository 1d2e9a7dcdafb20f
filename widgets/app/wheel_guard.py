"""A wheel over a scrolling form scrolls the form; it does not turn the field under the pointer.

Spin boxes and drop-downs take the wheel wherever the pointer is, so scrolling a long
inspector page would change whatever passed under it (a UPS scheme, a busway rating),
each as an undoable edit the user never meant. Guarded fields take the wheel only once
they have focus (a click or Tab); otherwise it goes to the page's scroll bar.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QComboBox, QWidget


class _WheelGuard(QObject):
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.Wheel or watched.hasFocus():
            return False
        area = watched.parentWidget()
        while area is not None and not isinstance(area, QAbstractScrollArea):
            area = area.parentWidget()
        if area is not None:
            QCoreApplication.sendEvent(area.verticalScrollBar(), event)
        return True


def guard_wheel(root: QWidget) -> None:
    """Guard every spin box and drop-down under ``root`` (call again after adding fields)."""
    guard = root.findChild(_WheelGuard, "wheel-guard")
    if guard is None:
        guard = _WheelGuard(root)
        guard.setObjectName("wheel-guard")
    for field in root.findChildren(QAbstractSpinBox) + root.findChildren(QComboBox):
        if field.property("wheel_guarded"):
            continue
        field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        field.installEventFilter(guard)
        field.setProperty("wheel_guarded", True)
