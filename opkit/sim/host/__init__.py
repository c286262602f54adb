"""Helpers around the simulator harness (its C++ sources sit next to this file; the request/result
contract is in README.md)."""

from opkit.sim.host.tiling_struct import kernel_struct_header

__all__ = ["kernel_struct_header"]
