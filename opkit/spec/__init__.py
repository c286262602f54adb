"""The operator spec (op.yaml): schema, loader with line numbers, typed objects."""

from opkit.spec.load import load, load_string, resolve_column
from opkit.spec.model import Attr, Case, CompareHook, Condition, DimLimit, Param, PerfCase, SocTarget, Spec

__all__ = ["Attr", "Case", "CompareHook", "Condition", "DimLimit", "Param", "PerfCase", "SocTarget", "Spec", "load",
           "load_string", "resolve_column"]
