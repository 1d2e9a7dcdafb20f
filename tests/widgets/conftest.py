"""Widget tests run headless: the offscreen platform must be chosen before Qt is imported."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
