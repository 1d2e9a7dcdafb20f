"""A function run in a forked child process, beside what the parent runs meanwhile.

The engines are pure functions of one context; on two cores the training engine's plan searches (four of
them, for the plan and the throughput-vs-size chart) can run while the parent sizes the fabric, checks the
space and sums the power. Threads cannot do that: the searches and the checks both hold the interpreter.
A forked child shares the parent's memory as it was at the fork (copy on write), so nothing of the design
is copied or pickled on the way in; only the function's value comes back through a pipe, pickled.

Only where ``fork`` is safe for a process like this one: Linux (macOS' system libraries may not be used
in a forked child; Windows has no fork), and a process of one thread (a lock another thread held at the
fork would stay held in the child). Elsewhere, or when the fork fails, the caller runs the function
itself. Whatever goes wrong in the child (an error, a value that cannot be pickled, a signal) sends
nothing back, and the parent runs the function itself: a pure function gives the same value, or raises
its own error, exactly as without a child.
"""
from __future__ import annotations

import contextlib
import copyreg
import io
import os
import pickle
import signal
import sys
import threading
from types import MappingProxyType

#: Where a forked child may run a function: fork, and nothing loaded that must not be used after one.
FORK_SAFE = sys.platform.startswith("linux") and hasattr(os, "fork")
#: prctl(2)'s option that sends the child a signal when its parent ends.
_PR_SET_PDEATHSIG = 1


def read_only(values: dict) -> MappingProxyType:
    """A read-only mapping of ``values`` (how a result's mappings are rebuilt in the parent)."""
    return MappingProxyType(values)


def _read_only_mapping(m: MappingProxyType):
    return read_only, (dict(m),)


class Child:
    """A function running in a forked child; :meth:`result` waits for its value."""

    def __init__(self, pid: int, pipe: int, run):
        self.pid, self.pipe, self.run = pid, pipe, run

    def result(self):
        """The child's value; where the child sent none (it failed or was killed), ``run()`` here."""
        pipe, self.pipe = self.pipe, None
        with os.fdopen(pipe, "rb") as f:
            data = f.read()
        self._reap()
        if data:
            with contextlib.suppress(Exception):  # what the child sent cannot be read here: the parent runs it
                return pickle.loads(data)
        return self.run()

    def stop(self) -> None:
        """Kill the child if it still runs (the parent is leaving: an error or Ctrl-C), reap it, close the pipe."""
        if self.pipe is not None:
            os.close(self.pipe)
            self.pipe = None
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()

    def _reap(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ChildProcessError):  # reaped already (SIGCHLD ignored)
                os.waitpid(self.pid, 0)
            self.pid = None


def _pickled(value) -> bytes:
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    # results hold read-only mappings (MappingProxyType), which pickle refuses: sent as dicts, made read-only again
    pickler.dispatch_table = copyreg.dispatch_table.copy()
    pickler.dispatch_table[MappingProxyType] = _read_only_mapping
    pickler.dump(value)
    return buf.getvalue()


def _in_child(run, write: int, parent: int, mask) -> None:
    """The child's whole life: die with the parent, compute, send, and leave without the parent's exit handlers
    or a flush of its output buffers. Anything raised (an error, a value that cannot be pickled, Ctrl-C) ends it
    with nothing sent, and the parent runs ``run`` itself."""
    code = 1
    try:
        import ctypes  # here: only a child pays for loading it

        # a parent killed outright (SIGKILL, SIGTERM) takes the child with it, and its pipes with them
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # it ended before the line above
            os._exit(1)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)  # the parent's stdout is the parent's: nothing of the child's reaches it
        data = _pickled(run())
        with os.fdopen(write, "wb") as f:
            f.write(data)
        code = 0
    finally:
        os._exit(code)


def start(run) -> Child | None:
    """Run ``run()`` (no arguments) in a forked child and return the :class:`Child`; None where no child can be
    forked (the caller runs it)."""
    if not FORK_SAFE or threading.active_count() != 1:
        return None
    read, write = os.pipe()
    parent = os.getpid()
    # Ctrl-C between the fork and the child's first line would unwind the child through the parent's code:
    # held back across the fork, and let in again on both sides
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        pid = os.fork()
    except OSError:  # no memory or process slot for a child
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(read)
        os.close(write)
        return None
    if pid == 0:
        os.close(read)
        _in_child(run, write, parent, blocked)
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    os.close(write)
    return Child(pid, read, run)
