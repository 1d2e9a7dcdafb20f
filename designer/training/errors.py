"""The errors of the training engine."""
from __future__ import annotations


class TrainingError(ValueError):
    """A bad model, plan or cluster; the message is one line that says what and where."""


class NothingFits(TrainingError):
    """A search that found plans that can run but none that fits in GPU memory: an answer (memory binds), not bad
    input; the message names the leanest plan and how far over it is."""
