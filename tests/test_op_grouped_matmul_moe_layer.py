"""The MoE layer example of docs/moe-layer.md, run as written: router -> moe_gating_top_k -> permutation ->
grouped_matmul -> combine, against the float64 NumPy layer it contains."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "moe-layer.md"


def test_moe_layer_example_runs_and_matches_numpy(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 1
    scope: dict = {}
    exec(compile(blocks[0], str(DOC), "exec"), scope)  # the example's own asserts judge it
    assert scope["err"] < 5e-3 and scope["group_list"].sum() == scope["T"] * scope["K"]
    assert "MoE layer: 64 tokens" in capsys.readouterr().out
