"""What a package's golden.py may use from opkit, and the convention it follows.

A golden is a plain NumPy function named in op.yaml (``golden: golden.py:func``). opkit calls it
with keyword arguments: every input by name (float inputs as float64 arrays holding exactly the
values the kernel receives, after rounding to the input's dtype; integer inputs in their own dtype;
an absent optional input as None; a dynamic input as a list of arrays) and every attr by name. It
returns a dict {output name: array} (or a single array when the op has one output), computed in
high precision; opkit compares it with the kernel's outputs.

golden.py may also define custom input generators, named in a case as ``init: {x: {custom: fn}}``
and called as ``fn(shape, dtype, rng, attrs)`` returning an array of that shape.

For the roofline of the performance model, golden.py may define ``flops(shapes, dtypes, attrs)`` and
``hbm_bytes(shapes, dtypes, attrs)``, each returning an int: the arithmetic operations of one call and
the bytes it must move between global memory and the cores. ``shapes`` and ``dtypes`` map every
input and output name to its shape (a tuple) and dtype name (``float16``...); ``attrs`` holds every
attr. Both are optional; ``FLOPS_HOOK`` and ``BYTES_HOOK`` name them.
"""

from __future__ import annotations


class ComputeNotImplemented(Exception):
    """Raised by a generated golden whose math opkit could not know (``opkit new --spec``).

    The line before the raise carries the marker comment ``opkit: compute not implemented``;
    verify reports that line and the kernel's marked line together.
    """


MARKER = "opkit: compute not implemented"
FLOPS_HOOK = "flops"
BYTES_HOOK = "hbm_bytes"
