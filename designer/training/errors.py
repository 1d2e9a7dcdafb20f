"""The one error type of the training engine."""
from __future__ import annotations


class TrainingError(ValueError):
    """A bad model, plan or cluster; the message is one line that says what and where."""
