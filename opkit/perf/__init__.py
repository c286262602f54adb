"""Performance model: replay a simulator trace on a chip's pipes (all figures are modelled)."""

from __future__ import annotations

from .costs import ChipParams, chip_params, op_cost
from .model import LABEL, ModelResult, evaluate, golden_costs, model_run, model_trace, roofline_us

__all__ = [
    "LABEL",
    "ChipParams",
    "ModelResult",
    "chip_params",
    "evaluate",
    "golden_costs",
    "model_run",
    "model_trace",
    "op_cost",
    "roofline_us",
]
