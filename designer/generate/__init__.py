"""The SuperPOD generator: from "N GPUs of system S" to a complete, placed, checkable design."""
from .build import Generated, generate
from .spec import NETWORKS, SYSTEMS, GenerateError, SuperpodSpec, check_spec, parse_hall

__all__ = ["Generated", "generate", "NETWORKS", "SYSTEMS", "GenerateError", "SuperpodSpec", "check_spec",
           "parse_hall"]
