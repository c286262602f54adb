"""op.yaml ``dims`` limits and ``opkit verify --sweep`` (dims of 2^k and 2^k - 1 inside them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opkit.errors import SpecError, UsageError
from opkit.run.types import RunOutput
from opkit.spec import load, load_string
from opkit.verify.golden import run_golden
from opkit.verify.pipeline import Selection, select, verify_spec
from opkit.verify.sweep import MAX_ELEMENTS, powers_of_two_and_one_less, spread

ROOT = Path(__file__).resolve().parents[1]
MOE = ROOT / "ops" / "moe" / "moe_gating_top_k"

ROPE_LIKE = """
name: my_rope
family: custom
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [float16], shape: [B, S, ...D]}
  - {name: c, dtypes: [float16], shape: [B|1, S, ...D]}
outputs:
  - {name: y, dtypes: [float16], shape: [B, S, ...D]}
golden: golden.py:my_rope
DIMS
cases:
  - {name: smoke, tags: [smoke], shapes: {x: [4, 16, 2, 64], c: [1, 16, 2, 64]}, seed: 3, attrs: {}}
  - {name: big, shapes: {x: [8, 100, 2, 64], c: [8, 100, 2, 64]}}
"""


def rope(dims: str = "") -> object:
    return load_string(ROPE_LIKE.replace("DIMS", dims))


def sweep_names(spec, **kw) -> dict[str, dict]:
    return {j.case.name: j.case for j in select(spec, Selection(sweep=True, **kw)) if "sweep" in j.case.tags}


def test_values_are_powers_of_two_and_one_less():
    assert powers_of_two_and_one_less(0, 16) == [0, 1, 2, 3, 4, 7, 8, 15, 16]
    assert powers_of_two_and_one_less(5, 100) == [7, 8, 15, 16, 31, 32, 63, 64]
    assert powers_of_two_and_one_less(1, 64, multiple_of=4) == [4, 8, 16, 32, 64]
    assert spread([1, 2, 3, 4, 5, 6, 7], 3) == [1, 4, 7] and spread([1, 2], 5) == [1, 2]


def test_full_cases_bound_the_sweep_only_when_the_run_includes_them():
    spec = load_string(ROPE_LIKE.replace("DIMS", "").replace("{name: big,", "{name: big, tags: [full],"))
    def largest_s(**kw):
        return max(c.dims["S"] for n, c in sweep_names(spec, sweep_values=100, **kw).items() if "_S=" in n)

    assert largest_s() == 15  # the base's own 16 is the largest outside 'full'
    assert largest_s(full=True) == 64


def test_each_symbol_swept_alone_within_the_largest_value_the_spec_uses():
    cases = sweep_names(rope(), sweep_values=100)
    b = {n: c for n, c in cases.items() if n.startswith("sweep_smoke_B=")}
    assert sorted(c.dims["B"] for c in b.values()) == [1, 2, 3, 7, 8]  # up to 8 (case 'big'), not the base's 4
    c = b["sweep_smoke_B=7"]
    assert c.shapes == {"x": [7, 16, 2, 64], "c": [1, 16, 2, 64]}  # c's broadcast 1 stays
    assert c.tags == ("sweep",) and c.base == "smoke" and c.seed == 3
    s = sorted(c.dims["S"] for n, c in cases.items() if n.startswith("sweep_smoke_S="))
    assert s == [1, 2, 3, 4, 7, 8, 15, 31, 32, 63, 64]  # up to 100, without the base's 16
    # the ...D group: each of its dims on its own, named D.0 and D.1
    d1 = cases["sweep_smoke_D.1=63"]
    assert d1.shapes == {"x": [4, 16, 2, 63], "c": [1, 16, 2, 63]}
    assert "sweep_smoke_D.0=1" in cases
    assert all(n.startswith("sweep_smoke_") for n in cases)  # only the first smoke case is a base


def test_declared_limits_bound_the_sweep():
    spec = rope("dims: {S: {min: 8, max: 512, multiple_of: 4}, B: {sweep: false}}")
    cases = sweep_names(spec, sweep_values=100)
    assert sorted(c.dims["S"] for n, c in cases.items() if "_S=" in n) == [8, 32, 64, 128, 256, 512]
    assert not any("_B=" in n for n in cases)
    # --sweep-values spreads fewer values from the smallest to the largest
    few = sweep_names(spec, sweep_values=2)
    assert sorted(c.dims["S"] for n, c in few.items() if "_S=" in n) == [8, 512]


def test_selection_picks_the_base_cases():
    spec = rope()
    assert all(c.base == "big" for c in sweep_names(spec, keyword="big").values())
    plain = {j.case.name for j in select(spec, Selection(keyword="big"))}
    assert plain == {"big"}


def test_inputs_beyond_the_element_cap_are_left_out():
    spec = rope(f"dims: {{S: {{max: {MAX_ELEMENTS}}}}}")
    cases = sweep_names(spec, sweep_values=100)
    sizes = [int(np.prod(c.shapes["x"])) for c in cases.values()]
    assert max(sizes) <= MAX_ELEMENTS and any("_S=" in n for n in cases)


@pytest.mark.parametrize("dims,message", [
    ("dims: {S: {max: 8}}", "cases[0].shapes: S = 16 is outside [1, 8] (op.yaml dims.S)"),
    ("dims: {S: {multiple_of: 32}}", "cases[0].shapes: S = 16 is not a multiple of 32"),
    ("dims: {D: {max: 32}}", "D = 64 is outside [1, 32]"),
    ("dims: {Q: {max: 8}}", "dims.Q: no tensor shape uses the symbol 'Q' (symbols: B, D, S)"),
    ("dims: {S: {min: 9, max: 4}}", "dims.S: max 4 is below min 9"),
    ("dims: {S: {maximum: 4}}", "unknown field 'maximum'"),
])
def test_dims_errors(dims, message):
    with pytest.raises(SpecError) as info:
        rope(dims)
    assert any(message in p for p in info.value.problems), info.value.problems


def test_bad_sweep_use_is_a_clear_error():
    spec = rope()
    with pytest.raises(UsageError, match="--sweep-values 0: give at least 1 value per dim"):
        select(spec, Selection(sweep=True, sweep_values=0))
    with pytest.raises(UsageError, match="--sweep-values only means something with --sweep"):
        select(spec, Selection(sweep_values=3))
    fixed = load_string(ROPE_LIKE.replace("[B, S, ...D]", "[4, 16, 2, 64]").replace("[B|1, S, ...D]", "[1, 16, 2, 64]")
                        .replace("DIMS", "").replace("[8, 100, 2, 64]", "[4, 16, 2, 64]").replace(
                            "c: [4, 16, 2, 64]}}", "c: [1, 16, 2, 64]}}"))
    with pytest.raises(UsageError, match="nothing to sweep in my_rope .*case 'smoke': its shapes bind no symbol"):
        select(fixed, Selection(sweep=True))
    with pytest.raises(UsageError, match="dims.S.sweep is false"):
        select(rope("dims: {S: {sweep: false}, B: {sweep: false}, D: {sweep: false}}"), Selection(sweep=True))


def test_cli_refuses_bad_sweep_use(cli):
    code, _, err = cli("verify", MOE, "--sweep-values", "3")
    assert code != 0 and "--sweep-values only means something with --sweep" in err


class GoldenRouter:
    def run(self, spec, case, column, chip, inputs):
        out = run_golden(spec, case, inputs)
        from opkit.numerics import np_dtype
        return RunOutput({"expert_idx": out["expert_idx"].astype(np.int32),
                          "y": out["y"].astype(np_dtype(spec.outputs[0].dtypes[column]))})


def test_moe_sweeps_tokens_only_and_every_sweep_case_runs():
    spec = load(MOE)
    cases = sweep_names(spec, keyword="mixtral_top2", sweep_values=100)
    tokens = sorted(c.dims["T"] for c in cases.values())
    # T from 0 (declared), up to 77 (the largest T of a case that is not tagged full), without the base's 64
    assert tokens == [0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63]
    with_full = sweep_names(spec, keyword="mixtral_top2", sweep_values=100, full=True)
    assert max(c.dims["T"] for c in with_full.values()) == 8192  # mixtral_prefill (full) has 8192 tokens
    assert all(c.shapes["x"][1] == 8 for c in cases.values())  # E is declared sweep: false
    results = verify_spec(spec, GoldenRouter(), Selection(keyword="mixtral_top2", dtype="float16", sweep=True,
                                                          sweep_values=3))
    assert [r.case for r in results] == ["mixtral_top2", "sweep_mixtral_top2_T=0", "sweep_mixtral_top2_T=8",
                                         "sweep_mixtral_top2_T=63"]
    assert all(r.status == "pass" for r in results), [r.message for r in results]
    assert results[3].shapes == {"x": [63, 8]} and results[3].compare.counts["rows"] == 63
