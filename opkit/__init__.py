"""opkit: an operator development kit for Ascend C fused operators."""

__version__ = "0.1.0"
