"""PodPlanner's Qt user interface. Modules here may import PySide6; designer/, catalog/ and exporters/ never do.

This package's ``__init__``, :mod:`widgets.app.launcher` (the ``podplanner`` console script)
and :mod:`widgets.app.cli` (the ``gui`` command) load no Qt when imported, so that
``podplanner analyze`` never does: Qt comes in only when the window opens.
"""
