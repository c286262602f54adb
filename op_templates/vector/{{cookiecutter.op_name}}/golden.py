{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% if cookiecutter.compute == "template" %}
"""Golden reference of {{ T }}: z = relu(x + alpha * y), element by element.

opkit calls the golden with every input as a float64 array that holds exactly the values the kernel
receives (already rounded to the input dtype) and every attr by name, and compares what it returns
with the kernel's outputs under the precision profile of op.yaml. The kernel computes in float32
and rounds once to the output dtype; the golden computes in float64.
"""

from __future__ import annotations

import numpy as np

from opkit.dtypes import DTYPES


def {{ s.golden_func }}(x, y, alpha=1.0):
    """z = max(x + alpha * y, 0).

    NaN propagates (as np.maximum does); +inf stays +inf and -inf becomes 0; inf - inf is NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return {"z": np.maximum(x + float(alpha) * y, 0.0)}


def flops(shapes, dtypes, attrs):
    """Arithmetic per call: a multiply, an add and a max per element."""
    return 3 * int(np.prod(shapes["x"], dtype=np.int64))


def hbm_bytes(shapes, dtypes, attrs):
    """Global-memory traffic of the fused kernel: x and y read once, z written once."""
    n = int(np.prod(shapes["x"], dtype=np.int64))
    return n * (DTYPES[dtypes["x"]].size + DTYPES[dtypes["y"]].size + DTYPES[dtypes["z"]].size)
{% else %}
{% set ns = namespace(star=false) %}
{% set args = [] %}
{% for p in s.inputs %}
{% if p.param != "REQUIRED" and not ns.star %}
{% set ns.star = true %}
{% set _ = args.append("*") %}
{% endif %}
{% set _ = args.append(p.name ~ ("=None" if p.param == "OPTIONAL" else "")) %}
{% endfor %}
{% if s.attrs and not ns.star %}
{% set _ = args.append("*") %}
{% endif %}
{% for a in s.attrs %}
{% set _ = args.append(a.name if a.required else a.name ~ "=" ~ a.default_py) %}
{% endfor %}
{% set outs = [] %}
{% for o in s.outputs %}{% set _ = outs.append('"' ~ o.name ~ '": ...') %}{% endfor %}
"""Golden reference of {{ T }}.

opkit calls the golden with every input by name (float inputs as float64 arrays holding exactly the
values the kernel receives, integer inputs in their own dtype, an absent optional input as None, a
dynamic input as a list of arrays) and every attr by name. It returns {output name: array},
computed in high precision; opkit compares it with the kernel's outputs.
"""

from __future__ import annotations

import numpy as np  # noqa: F401  (the reference will need it)

from opkit.golden import ComputeNotImplemented


def {{ s.golden_func }}({{ args | join(", ") }}):
    """Return {{ '{' }}{{ outs | join(", ") }}{{ '}' }}."""
    # opkit: compute not implemented
    raise ComputeNotImplemented("{{ s.golden_func }} in golden.py: write the NumPy reference of {{ T }}")
{% endif %}
