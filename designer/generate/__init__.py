"""The SuperPOD generator: from "N GPUs of system S" to a complete, placed, checkable design."""
from .spec import NETWORKS, SYSTEMS, GenerateError, SuperpodSpec, check_spec, parse_hall


def __getattr__(name: str):
    # The builder (and the engines it sizes with) loads on first use: the command line imports this package
    # for its spec and errors on every command, `podplanner analyze` included.
    if name in ("Generated", "generate"):
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Generated", "generate", "NETWORKS", "SYSTEMS", "GenerateError", "SuperpodSpec", "check_spec",
           "parse_hall"]
