"""The Python call API, ``opkit.ops.load(name)(...)``: every package of ops/ run through it on the simulator and
judged against its golden as verify judges it; list, optional and reference-form tensors; argument errors before
any build; kernel diagnostics; torch tensors; the build cache."""

from __future__ import annotations

import os
import re
import sys
import types
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from helpers import fresh_copy

import opkit.ops
from opkit.discover import packages_under
from opkit.errors import OpkitError
from opkit.run.sim_runner import KernelError, RunOutput
from opkit.verify import usercode
from opkit.verify.compare import compare
from opkit.verify.golden import run_golden
from opkit.verify.pipeline import Job, verify_job
from opkit.verify.report import PASS

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
LIST_SUM = FIXTURES / "api" / "list_sum"
CACHE_ACCUM = FIXTURES / "layouts" / "optrans" / "demos" / "cache_accum"
CHIP = "ascend910b2"
PACKAGES = packages_under(ROOT / "ops")


@pytest.fixture(autouse=True)
def _guarded_golden():
    with usercode.guarded(120):
        yield


class ApiRunner:
    """A verify runner that runs each case through the Python API, so that verify's golden, profiles and
    comparison hooks judge what the API returns."""

    def __init__(self, op: opkit.ops.Operator) -> None:
        self.op = op

    def run(self, spec, case, column, chip, inputs):
        args = {k: v for k, v in inputs.items() if v is not None} | dict(case.attrs)
        result = self.op.run(args, dtype=column, chip=chip)
        produced = [o.name for o in spec.produced_outputs(case.attrs)]
        values = result._asdict() if len(produced) > 1 else {produced[0]: result}
        assert list(values) == produced
        return RunOutput(dict(values), self.op.last_info)

    def run_ranks(self, spec, case, column, chip, inputs, trace_only=False):
        """A multi-rank case: one mapping per rank, the attrs once; a RunOutput per rank."""
        ranks = [{k: v for k, v in i.items() if v is not None} for i in inputs]
        results = self.op(ranks, **case.attrs)
        produced = [o.name for o in spec.produced_outputs(case.attrs)]
        outs = []
        for res, info in zip(results, self.op.last_info["ranks"], strict=True):
            values = res._asdict() if len(produced) > 1 else {produced[0]: res}
            assert list(values) == produced
            outs.append(RunOutput(dict(values), info))
        return outs


def _smoke(spec):
    return next(c for c in spec.cases if "smoke" in c.tags)


def test_ops_holds_the_family_packages():
    assert {p.name for p in PACKAGES} >= {"axpy_relu", "rms_norm", "matmul_bias_act", "moe_gating_top_k",
                                          "interleave_rope"}


@pytest.mark.parametrize("pkg", PACKAGES, ids=[p.name for p in PACKAGES])
def test_every_package_runs_through_the_api_and_matches_its_golden(pkg):
    op = opkit.ops.load(pkg.name, cwd=ROOT, chip=CHIP)
    assert op.spec.dir == pkg and op.chip == CHIP
    case = _smoke(op.spec)
    res = verify_job(op.spec, Job(case, case.columns[0], CHIP), ApiRunner(op))
    assert res.status == PASS, res.message
    assert res.outputs or res.compare  # something was judged


def test_positional_inputs_bf16_arrays_and_broadcast_tables():
    op = opkit.ops.load("interleave_rope", cwd=ROOT)
    rng = np.random.default_rng(3)
    b, n, s, d = 2, 2, 4, 64
    x = rng.standard_normal((b, n, s, d)).astype(ml_dtypes.bfloat16)
    cos = rng.uniform(-1, 1, (1, 1, s, d)).astype(ml_dtypes.bfloat16)
    sin = rng.uniform(-1, 1, (1, 1, s, d)).astype(ml_dtypes.bfloat16)
    y = op(x, cos, sin=sin)
    assert isinstance(y, np.ndarray) and y.dtype == ml_dtypes.bfloat16 and y.shape == (b, n, s, d)
    bits = op.run({"x": x.view(np.uint16), "cos": cos.view(np.uint16), "sin": sin.view(np.uint16)}, dtype="bfloat16")
    assert bits.dtype == ml_dtypes.bfloat16 and np.array_equal(bits.view(np.uint16), y.view(np.uint16))
    with pytest.raises(OpkitError, match="input 'x' is uint16; it takes float16, bfloat16"):
        op(x.view(np.uint16), cos.view(np.uint16), sin.view(np.uint16))  # without dtype= bits are not bf16
    spec = op.spec
    want = run_golden(spec, _case(spec, x=x, cos=cos, sin=sin), {"x": x, "cos": cos, "sin": sin})["y"]
    assert compare("y", y, want, "bfloat16").passed


def _case(spec, **inputs):
    from opkit.ops.arguments import bind

    return bind(spec, (), inputs).case


def test_optional_input_may_be_omitted_or_none_and_conditional_outputs_follow_the_attrs():
    op = opkit.ops.load("moe_gating_top_k", cwd=ROOT)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 32)).astype(np.float32)
    golden = usercode.module(op.spec.dir / "golden.py").moe_gating_top_k
    plain = op(x=x, k=2)
    assert type(plain).__name__ == "MoeGatingTopKOutputs" and plain._fields == ("y", "expert_idx")
    y, idx = plain  # unpacks in op.yaml's order
    assert idx.dtype == np.int32 and idx.shape == (6, 2) and y.dtype == np.float32
    want = golden(x.astype(np.float64), None, k=2)
    assert np.array_equal(idx, want["expert_idx"]) and np.allclose(y, want["y"], rtol=1e-5, atol=1e-6)
    assert np.array_equal(op(x, None, k=2).expert_idx, idx)  # None is the same as leaving it out
    bias = np.zeros(32, np.float32)
    bias[[5, 9]] = 100.0  # the bias steers the selection to experts 5 and 9
    steered = op(x, bias, k=2)
    assert sorted(steered.expert_idx[0]) == [5, 9]
    with_norm = op(x, k=2, out_flag=True)
    assert with_norm._fields == ("y", "expert_idx", "out") and with_norm.out.shape == (6, 32)
    assert np.allclose(with_norm.out.sum(axis=1), 1.0, atol=1e-5)


def test_a_dynamic_input_takes_a_list_of_arrays():
    op = opkit.ops.load(LIST_SUM)
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(64).astype(np.float32) for _ in range(3)]
    y = op(xs, scale=0.5)
    assert y.shape == (64,) and np.allclose(y, 0.5 * (xs[0] + xs[1] + xs[2]), rtol=1e-6, atol=1e-6)
    one = op(xs=(xs[1],))  # a tuple is a list too
    assert np.allclose(one, xs[1])
    five = [rng.standard_normal(128).astype(np.float32) for _ in range(5)]
    assert np.allclose(op(five), np.sum(five, axis=0), rtol=1e-5, atol=1e-5)


def test_a_reference_form_output_is_returned_and_the_callers_array_is_left_alone():
    op = opkit.ops.load(CACHE_ACCUM)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 40)).astype(np.float32)
    cache = rng.standard_normal((12, 40)).astype(np.float32)
    before = cache.copy()
    y, cache_ref = op(x, cache, scale=-0.5)
    assert np.array_equal(cache, before)  # the updated cache is the returned output, not the argument
    assert np.allclose(y, -0.5 * x)
    assert np.allclose(cache_ref[:5], before[:5] + x, rtol=1e-6) and np.array_equal(cache_ref[5:], before[5:])


def test_dtype_and_chip_can_be_chosen_per_call():
    op = opkit.ops.load("axpy_relu", cwd=ROOT)
    x = np.linspace(-1, 1, 256, dtype=np.float32)
    z = op.run({"x": x, "y": x, "alpha": 2.0}, dtype="float32", chip="ascend910b2")
    assert np.allclose(z, np.maximum(3 * x, 0), rtol=1e-6)
    with pytest.raises(OpkitError, match=r"input 'x' is float32, but dtype column 0 \(float16\) takes float16"):
        op.run({"x": x, "y": x}, dtype=0)
    with pytest.raises(OpkitError, match="column 7 does not exist"):
        op.run({"x": x, "y": x}, dtype=7)
    with pytest.raises(OpkitError, match="does not target ascend310p"):
        op.run({"x": x, "y": x}, chip="ascend310p")


def _package_copy(tmp_path: Path, rel: str) -> Path:
    return fresh_copy(ROOT / rel, tmp_path / Path(rel).name)


ARG_ERRORS = [
    # (call, the message's key part)
    (lambda op, x: op(x), "input 'y' is required: give it as y=ARRAY (axpy_relu(x, y, *, alpha=1.0))"),
    (lambda op, x: op(x, x, beta=1.0), "no input or attr named 'beta'; inputs: x, y; attrs: alpha"),
    (lambda op, x: op(x, x, z=x), "no input or attr named 'z' (an output: the call returns it)"),
    (lambda op, x: op(x, x, x), "3 positional arguments, but it takes at most 2"),
    (lambda op, x: op(x, x=x), "input 'x' given both by position and by name"),
    (lambda op, x: op(x.astype(np.float64), x), "input 'x' is float64; it takes float16, bfloat16, float32"),
    (lambda op, x: op(x, x.astype(np.float16)), "the inputs' dtypes (x=float32, y=float16) are no dtype column"),
    (lambda op, x: op(x, x[:100]), "input 'y': shape [100] dims [100] (...N) differ from [256]"),
    (lambda op, x: op(x, x, alpha="big"), "attr 'alpha': 'big' is not a value of type float"),
    (lambda op, x: op(x, x, alpha=True), "attr 'alpha': True is not a value of type float"),
    (lambda op, x: op([x], x), "input 'x' takes one array, not a list"),
    (lambda op, x: op(x.tolist(), x), "input 'x' takes one array, not a list"),
    (lambda op, x: op("x", x), "input 'x': expected an array (NumPy or torch), got a str"),
    (lambda op, x: op({"x": x, "y": x}), "one mapping per rank is the call of a multi-rank (MC2) operator"),
    (lambda op, x: op([{"x": x}, {"x": x}]), "one mapping per rank is the call of a multi-rank (MC2) operator"),
    (lambda op, x: op.run([x, x]), "give the inputs and attrs as one mapping"),
]


@pytest.mark.parametrize("call,message", ARG_ERRORS, ids=[m.split(":")[0][:40] for _, m in ARG_ERRORS])
def test_arguments_are_checked_against_op_yaml_before_any_build(tmp_path, call, message):
    pkg = _package_copy(tmp_path, "ops/examples/axpy_relu")
    op = opkit.ops.load(pkg)
    with pytest.raises(OpkitError) as exc:
        call(op, np.zeros(256, np.float32))
    assert message in exc.value.message
    assert exc.value.message.startswith("axpy_relu: ") or "mapping" in message
    assert not (pkg / ".opkit").exists()  # refused before anything was compiled


def test_rank_dims_and_attr_checks_of_other_ops(tmp_path):
    rope = opkit.ops.load(_package_copy(tmp_path, "ops/posembedding/interleave_rope"))
    x = np.zeros((1, 2, 8, 64), np.float16)
    t = np.zeros((1, 1, 8, 64), np.float16)
    with pytest.raises(OpkitError, match=r"input 'x': shape \[2, 8, 64\] has rank 3 but the spec's shape "
                                         r"\['B', 'N', 'S', 'D'\] has rank 4"):
        rope(x[0], t, t)
    with pytest.raises(OpkitError, match=r"input 'cos': shape \[1, 2, 8, 64\] dim 1 is 2 but the spec fixes it"):
        rope(x, np.zeros((1, 2, 8, 64), np.float16), t)
    odd = np.zeros((1, 1, 8, 63), np.float16)
    with pytest.raises(OpkitError, match=r"D = 63 is not a multiple of 2 \(op.yaml dims.D\)"):
        rope(np.zeros((1, 2, 8, 63), np.float16), odd, odd)
    moe = opkit.ops.load(_package_copy(tmp_path, "ops/moe/moe_gating_top_k"))
    logits = np.zeros((4, 16), np.float32)
    with pytest.raises(OpkitError, match=r"attr 'k' \(int\) is required: give k=VALUE"):
        moe(logits)
    with pytest.raises(OpkitError, match="attr 'k': 2.0 is not a value of type int"):
        moe(logits, k=2.0)
    with pytest.raises(OpkitError, match=r"the inputs' dtypes \(x=float32, bias=float16\) are no dtype column"):
        moe(logits, np.zeros(16, np.float16), k=2)  # each dtype is some column's, the pair is none
    lst = opkit.ops.load(LIST_SUM)
    with pytest.raises(OpkitError, match=r"input 'xs' is a dynamic \(list\) input: give a list of arrays, not a "
                                         r"float32 array"):
        lst(np.zeros(64, np.float32))
    with pytest.raises(OpkitError, match=r"input 'xs'\[1\]: expected an array \(NumPy or torch\), got a list"):
        lst([np.zeros(64, np.float32), [1.0] * 64])
    with pytest.raises(OpkitError, match=r"input 'xs'\[0\]: shape \[64, 1\] has rank 2"):
        lst([np.zeros((64, 1), np.float32)])
    assert not any((tmp_path / name / ".opkit").exists() for name in ("interleave_rope", "moe_gating_top_k"))


def test_the_kernels_own_diagnostics_surface_as_an_exception():
    op = opkit.ops.load(LIST_SUM)
    with pytest.raises(KernelError) as exc:
        op([np.zeros(64, np.float32), np.zeros(72, np.float32)])  # lengths differ: the tiling refuses
    msg = exc.value.message
    assert msg.startswith("list_sum::call[float32@ascend910b2]: ") and "tiling" in msg.lower()
    with pytest.raises(KernelError):
        op([])  # no tensor: InferShape has no length to give y


def test_backends_and_packages_that_cannot_run_are_refused(tmp_path, monkeypatch):
    from fake_cann import no_cann_env

    monkeypatch.setattr(os, "environ", no_cann_env(tmp_path))  # no CANN anywhere
    for backend in ("cann", "cann-cpu"):
        with pytest.raises(OpkitError, match=f"backend='{backend}'\\) cannot run on this machine:\n  missing ") as exc:
            opkit.ops.load("axpy_relu", cwd=ROOT, backend=backend)
        assert "fix: " in exc.value.message and "opkit doctor" in exc.value.message
    with pytest.raises(OpkitError, match=r"backend_options \['device'\] are options of backend='cann'"):
        opkit.ops.load("axpy_relu", cwd=ROOT, backend_options={"device": 1})
    with pytest.raises(OpkitError, match=r"backend='npu': unknown backend \(backends: sim, cann, cann-cpu\)"):
        opkit.ops.load("axpy_relu", cwd=ROOT, backend="npu")
    with pytest.raises(OpkitError, match="no_such_op: no operator package of that name"):
        opkit.ops.load("no_such_op", cwd=tmp_path)
    with pytest.raises(OpkitError, match=r"opkit.ops.load\(5\): give an op name or a path to a package"):
        opkit.ops.load(5)
    with pytest.raises(OpkitError, match="this folder holds no op.yaml"):
        opkit.ops.load(tmp_path)
    with pytest.raises(OpkitError, match="unknown SoC .ascend999.; valid chips: "):
        opkit.ops.load("axpy_relu", cwd=ROOT, chip="ascend999")
    with pytest.raises(OpkitError, match="timeout=0"):
        opkit.ops.load("axpy_relu", cwd=ROOT, timeout=0)
    mc2 = _package_copy(tmp_path, "ops/examples/axpy_relu")
    head, cases = (mc2 / "op.yaml").read_text().replace("family: examples", "family: mc2").split("\ncases:\n")
    cases = re.sub(r"^  - \{name: ", "  - {world_size: 2, name: ", cases, flags=re.M)  # every case names its ranks
    cases = re.sub(r"^  - name: (\w+)$", r"  - name: \1\n    world_size: 2", cases, flags=re.M)
    (mc2 / "op.yaml").write_text(head + "\ncases:\n" + cases)
    op = opkit.ops.load(mc2)  # a multi-rank operator: its call takes one mapping per rank
    x = np.ones(4, np.float32)
    with pytest.raises(OpkitError, match=r"axpy_relu is a multi-rank \(MC2\) operator: call it with one mapping of "
                                         r"tensors per rank"):
        op(x, x)
    with pytest.raises(OpkitError, match="rank 0's mapping and the keyword arguments both give 'x'"):
        op([{"x": x, "y": x}, {"x": x, "y": x}], x=x)


def test_an_op_name_is_found_from_anywhere_and_documents_itself(tmp_path):
    op = opkit.ops.load("rms_norm", cwd=tmp_path)  # not under tmp_path/ops: opkit's own ops/
    assert op.spec.dir == ROOT / "ops" / "examples" / "rms_norm"
    assert op.signature == "rms_norm(x, gamma, *, epsilon=1e-06)"
    assert op.inputs == ["x", "gamma"] and op.outputs == ["y", "rstd"] and op.attrs == {"epsilon": 1e-06}
    assert op.__doc__.startswith("rms_norm(x, gamma, *, epsilon=1e-06)") and "RMSNorm" in op.__doc__
    assert "rms_norm(x, gamma" in repr(op) and "ascend910b2" in repr(op)
    assert opkit.ops.load(ROOT / "ops" / "examples" / "rms_norm" / "op.yaml").spec.name == "rms_norm"


def test_a_second_call_with_new_shapes_and_a_second_load_do_not_rebuild(monkeypatch):
    from opkit.build import sim_backend

    op = opkit.ops.load("axpy_relu", cwd=ROOT)
    x = np.ones(512, np.float16)
    op(x, x)

    compiled = []
    real = sim_backend._compile_all

    def spy(cc, units, *args, **kwargs):
        compiled.extend(units)
        return real(cc, units, *args, **kwargs)

    monkeypatch.setattr(sim_backend, "_compile_all", spy)
    z = op(np.ones(3000, np.float16), np.full(3000, 2.0, np.float16), alpha=0.25)
    assert z.shape == (3000,) and np.all(z == 1.5)
    again = opkit.ops.load("axpy_relu", cwd=ROOT)  # a new operator finds the build cache
    assert again(np.ones((4, 33), np.float16), np.ones((4, 33), np.float16)).shape == (4, 33)
    assert compiled == []  # nothing was compiled after the first call


# --- torch ---------------------------------------------------------------------------------------------------


def _stub_torch() -> types.ModuleType:
    """Just enough of torch's CPU tensor for the API's conversions: a tensor over a NumPy array."""
    torch = types.ModuleType("torch")

    class DType:
        def __init__(self, name, np_dtype):
            self.name, self.np = name, np.dtype(np_dtype)

        def __repr__(self):
            return f"torch.{self.name}"

    torch.float16 = DType("float16", np.float16)
    torch.float32 = DType("float32", np.float32)
    torch.int16 = DType("int16", np.int16)
    torch.int32 = DType("int32", np.int32)
    torch.bfloat16 = DType("bfloat16", np.int16)  # the stub keeps bf16 bits in int16
    by_np = {d.np: d for d in (torch.float16, torch.float32, torch.int16, torch.int32)}

    class Device:
        def __init__(self, kind):
            self.type = kind

        def __str__(self):
            return self.type

    class Tensor:
        def __init__(self, arr, dtype=None, device="cpu"):
            self._a, self.dtype, self.device = arr, dtype or by_np[arr.dtype], Device(device)

        def detach(self):
            return self

        def contiguous(self):
            return Tensor(np.ascontiguousarray(self._a), self.dtype, self.device.type)

        def view(self, dtype):
            return Tensor(self._a.view(dtype.np), dtype, self.device.type)

        def numpy(self):
            if self.dtype is torch.bfloat16:
                raise TypeError("Got unsupported ScalarType BFloat16")
            return self._a

    torch.Tensor = Tensor
    torch.from_numpy = lambda arr: Tensor(arr)
    return torch


def test_torch_tensors_in_give_torch_tensors_out(monkeypatch):
    torch = _stub_torch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    op = opkit.ops.load("axpy_relu", cwd=ROOT)
    x = np.linspace(-2, 2, 512).astype(np.float16)
    z = op(torch.Tensor(x), x, alpha=1.0)  # one torch argument is enough
    assert isinstance(z, torch.Tensor) and z.dtype is torch.float16
    assert np.array_equal(z.numpy(), op(x, x))
    bits = np.linspace(-2, 2, 512).astype(ml_dtypes.bfloat16)
    zb = op(torch.Tensor(bits.view(np.int16), torch.bfloat16), torch.Tensor(bits.view(np.int16), torch.bfloat16))
    assert isinstance(zb, torch.Tensor) and zb.dtype is torch.bfloat16
    assert np.array_equal(zb.view(torch.int16).numpy().view(ml_dtypes.bfloat16), op(bits, bits))
    with pytest.raises(OpkitError, match=r"input 'x': a torch tensor on 'npu'; the simulator takes CPU tensors "
                                         r"\(pass tensor.cpu\(\)\)"):
        op(torch.Tensor(x, device="npu"), x)


def test_real_torch_tensors():
    torch = pytest.importorskip("torch")
    op = opkit.ops.load("axpy_relu", cwd=ROOT)
    x = torch.linspace(-2, 2, 512, dtype=torch.bfloat16)
    z = op(x, x, alpha=0.5)
    assert isinstance(z, torch.Tensor) and z.dtype == torch.bfloat16 and z.shape == (512,)
    assert torch.allclose(z.float(), torch.relu(1.5 * x.float()), rtol=2 ** -7)


def test_plain_import_opkit_reaches_the_api_and_a_run_reports_its_info():
    import opkit

    op = opkit.ops.load("axpy_relu", cwd=ROOT)
    op(np.ones(64, np.float32), np.ones(64, np.float32))
    assert op.last_info["block_dim"] >= 1 and "tiling_key" in op.last_info


def test_simulator_warnings_of_a_run_that_passed_become_python_warnings():
    op = opkit.ops.load("axpy_relu", cwd=ROOT)

    class Warned:
        def run(self, spec, case, column, chip, inputs):
            return RunOutput({"z": inputs["x"]}, {"warnings": ["DataCopy: 100 bytes is not a multiple of 32"]})

    op._runner = Warned()
    with pytest.warns(opkit.ops.SimulatorWarning, match="axpy_relu on ascend910b2: DataCopy: 100 bytes"):
        op(np.ones(8, np.float32), np.ones(8, np.float32))


def _doc_blocks() -> list[str]:
    import re

    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)  # ```py blocks are illustrations (MC2), not run


@pytest.mark.parametrize("index", range(len(_doc_blocks())))
def test_the_documented_examples_run(index, monkeypatch):
    block = _doc_blocks()[index]
    if "import torch" in block:
        pytest.importorskip("torch")
    monkeypatch.chdir(ROOT)
    exec(compile(block, f"docs/python-api.md block {index}", "exec"), {})


def test_opkit_run_on_npz_data_checks_the_dims_limits_too(cli, tmp_path):
    odd = np.zeros((1, 1, 4, 63), np.float16)
    np.savez(tmp_path / "in.npz", x=np.zeros((1, 2, 4, 63), np.float16), cos=odd, sin=odd)
    pkg = _package_copy(tmp_path, "ops/posembedding/interleave_rope")
    code, out, err = cli("run", pkg, "--inputs", tmp_path / "in.npz", "--out", tmp_path / "out.npz")
    assert code == 2 and "D = 63 is not a multiple of 2 (op.yaml dims.D)" in err
    assert not (pkg / ".opkit").exists()


def test_a_soc_that_supports_fewer_columns_refuses_the_others(tmp_path):
    pkg = _package_copy(tmp_path, "ops/examples/axpy_relu")
    text = (pkg / "op.yaml").read_text()
    assert "socs: [ascend910b, ascend910_93]" in text
    (pkg / "op.yaml").write_text(text.replace("socs: [ascend910b, ascend910_93]",
                                              "socs: [ascend910b, {soc: ascend910_93, columns: [float16]}]"))
    op = opkit.ops.load(pkg, chip="ascend910_93")
    x = np.ones(64, np.float32)
    with pytest.raises(OpkitError, match=r"ascend910_93 \(chip ascend910_9382\) supports the dtype columns "
                                         r"0 \(float16\) \(op.yaml socs\), not column 2 \(float32\)"):
        op(x, x)
    assert not (pkg / ".opkit").exists()


def test_build_ahead_of_the_first_call(tmp_path, monkeypatch):
    from opkit.build import sim_backend

    pkg = tmp_path / "list_sum"
    fresh_copy(LIST_SUM, pkg)
    op = opkit.ops.load(pkg)
    with pytest.raises(OpkitError, match=r"dtype='float16': no dtype column has \{'xs': 'float16'\}"):
        op.build(dtype="float16")
    op.build()
    assert sim_backend.plan(op.spec, op.chip, 0).exe.is_file()  # the harness the first call will use
    compiled = []
    real = sim_backend._compile_all
    monkeypatch.setattr(sim_backend, "_compile_all", lambda cc, units, *a, **k: compiled.extend(units) or
                        real(cc, units, *a, **k))
    assert np.all(op([np.ones(8, np.float32)] * 2) == 2.0)
    assert compiled == []


def test_simulator_checks_and_compile_errors_surface_with_the_users_file(tmp_path):
    pkg = tmp_path / "list_sum"
    fresh_copy(LIST_SUM, pkg)
    kernel = pkg / "op_kernel" / "list_sum.cpp"
    good = kernel.read_text()
    bad_copy = "        DataCopy(x, xGm, t.length);\n"
    assert bad_copy in good
    kernel.write_text(good.replace(bad_copy, "        DataCopy(x, xGm, t.length - 1);  // not whole 32-byte blocks\n"))
    op = opkit.ops.load(pkg)
    with pytest.raises(KernelError) as exc:
        op([np.ones(64, np.float32)])
    msg = exc.value.message
    assert msg.startswith("list_sum::call[float32@ascend910b2]: ") and "DataCopy" in msg and "list_sum.cpp:" in msg
    kernel.write_text(good.replace(bad_copy, "        DataCopy(x, xGm, t.length)\n"))  # a missing semicolon
    with pytest.raises(OpkitError) as exc:
        opkit.ops.load(pkg)([np.ones(64, np.float32)])
    assert "op_kernel/list_sum.cpp:" in exc.value.message and "error" in exc.value.message
