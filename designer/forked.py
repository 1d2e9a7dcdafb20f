"""One engine run in a forked child process, beside the engines the parent runs.

The engines are pure functions of one context; on two cores the training engine's plan searches (four of
them, for the plan and the throughput-vs-size chart) can run while the parent sizes the fabric, checks the
space and sums the power. Threads cannot do that: the searches and the checks both hold the interpreter.
A forked child shares the parent's memory as it was at the fork (copy on write), so nothing of the design
is copied or pickled on the way in; only the engine's result (a section and findings) comes back through
a pipe, pickled.

Only where ``fork`` is safe for a process like this one: Linux (macOS' system libraries may not be used
in a forked child; Windows has no fork). Elsewhere, or when the fork itself fails, the engine runs in
the calling process, as it would have without this module: the result is the same either way.
"""
from __future__ import annotations

import copyreg
import io
import os
import pickle
import signal
import sys
from types import MappingProxyType

#: Where a forked child may run an engine: fork, and nothing loaded that must not be used after one.
FORK_SAFE = sys.platform.startswith("linux") and hasattr(os, "fork")


def read_only(values: dict) -> MappingProxyType:
    """A read-only mapping of ``values`` (how a result's mappings are rebuilt in the parent)."""
    return MappingProxyType(values)


def _read_only_mapping(m: MappingProxyType):
    return read_only, (dict(m),)


class Child:
    """An engine running in a forked child; :meth:`result` waits for it and returns (ok, result or error)."""

    def __init__(self, pid: int, pipe: int, fallback):
        self.pid, self.pipe, self.fallback = pid, pipe, fallback

    def result(self) -> tuple[bool, object]:
        with os.fdopen(self.pipe, "rb") as f:
            data = f.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if data:
            try:
                return pickle.loads(data)
            except Exception:  # a truncated pipe (the child killed mid-write): run it here
                pass
        return _call(self.fallback)

    def stop(self) -> None:
        """Kill the child if it still runs (the parent is leaving: an error or Ctrl-C) and reap it."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        self.pid = None


def _call(run) -> tuple[bool, object]:
    try:
        return True, run()
    except Exception as exc:  # the engine's own error: the parent raises it in engine order
        return False, exc


def _pickled(outcome: tuple[bool, object]) -> bytes:
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    # results hold read-only mappings (MappingProxyType), which pickle refuses: sent as dicts, made read-only again
    pickler.dispatch_table = copyreg.dispatch_table.copy()
    pickler.dispatch_table[MappingProxyType] = _read_only_mapping
    try:
        pickler.dump(outcome)
    except Exception as exc:
        ok, value = outcome
        return _pickled((False, RuntimeError(f"the engine's {'result' if ok else 'error'} could not be sent back "
                                             f"from its process: {exc}")))
    return buf.getvalue()


def start(run) -> Child | tuple[bool, object]:
    """Run ``run()`` (no arguments: the engine and its context bound) in a forked child and return the
    :class:`Child`; where no child can be forked, run it here and return (ok, result or error) at once."""
    if not FORK_SAFE:
        return _call(run)
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no memory or process slot for a child: the parent does the work
        os.close(read)
        os.close(write)
        return _call(run)
    if pid == 0:  # the child: work, send, leave without running the parent's exit handlers or flushing its output
        code = 0
        try:
            os.close(read)
            data = _pickled(_call(run))
            with os.fdopen(write, "wb") as f:
                f.write(data)
        except BaseException:  # Ctrl-C or a closed pipe: the parent reads nothing and runs the engine itself
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    return Child(pid, read, run)
