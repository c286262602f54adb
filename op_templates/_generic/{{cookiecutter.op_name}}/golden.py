{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
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
