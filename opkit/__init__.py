"""opkit: an operator development kit for Ascend C fused operators."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``opkit.ops`` (the Python call API) after a plain ``import opkit``, imported on first use."""
    if name == "ops":
        import importlib

        return importlib.import_module("opkit.ops")
    raise AttributeError(f"module 'opkit' has no attribute {name!r}")
