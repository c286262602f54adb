"""Poisoned outputs end to end: a kernel that leaves part of its output unwritten fails with the output's name
and ranges; op.yaml's `untouched` hook names the elements the operator leaves as they were by contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from opkit.scaffold.new import new_package
from opkit.spec import load

pytestmark = pytest.mark.slow

# The scaffold's kernel, changed to write only the elements before LIMIT (global index).
LIMIT = 1000
SKIP = f"""    __aicore__ inline void CopyOut(uint64_t start, uint32_t count)
    {{
        if (offset_ + start >= {LIMIT}) {{
            LocalTensor<T> skipped = outQueueZ_.DeQue<T>();
            outQueueZ_.FreeTensor(skipped);
            return;
        }}
        if (offset_ + start + count > {LIMIT}) count = static_cast<uint32_t>({LIMIT} - offset_ - start);
"""
HOOK = f'''

def rows_left(x, y, alpha=1.0):
    """The elements from {LIMIT} on: left as they were by contract."""
    mask = np.zeros(np.shape(x), dtype=bool)
    mask[{LIMIT}:] = True
    return mask
'''


@pytest.fixture(scope="module")
def short(tmp_path_factory) -> Path:
    pkg = new_package("demo", directory="D", cwd=tmp_path_factory.mktemp("poison")).path
    h = pkg / "op_kernel" / "demo.h"
    text = h.read_text()
    text = text.replace("        coreLength_ = length;\n", "        coreLength_ = length;\n        offset_ = offset;\n", 1)
    text = text.replace("    __aicore__ inline void CopyOut(uint64_t start, uint32_t count)\n    {\n", SKIP, 1)
    text = text.replace("    TPipe pipe_;", "    uint64_t offset_ = 0;\n    TPipe pipe_;", 1)
    h.write_text(text)
    return pkg


def test_unwritten_output_is_reported_with_its_ranges(cli, short):
    code, out, err = cli("verify", "-k", "smoke", "--dtype", "float16", cwd=short)
    assert code != 0, out + err
    text = out + err
    assert "output 'z' were never written: bytes [2000, 4096) (elements [1000, 2048))" in text, text
    assert "2096 of the 4096 bytes" in text and "untouched" in text, text
    assert "Traceback" not in text


def test_untouched_hook_exempts_the_elements_left_as_they_were(cli, short):
    y = short / "op.yaml"
    y.write_text(y.read_text().replace("format: ND, shape: [...N]}\nattrs:",
                                       "format: ND, shape: [...N], untouched: rows_left}\nattrs:", 1))
    (short / "golden.py").write_text((short / "golden.py").read_text() + HOOK)
    assert load(short).outputs[0].untouched == "rows_left"
    code, out, err = cli("verify", "-k", "smoke", "--dtype", "float16", cwd=short)
    assert code == 0, out + err
    assert "1 passed, 0 failed" in out, out


def test_untouched_only_on_outputs(cli, tmp_path):
    pkg = new_package("demo", directory="D", cwd=tmp_path).path
    y = pkg / "op.yaml"
    y.write_text(y.read_text().replace("{name: x, dtypes: [float16, bfloat16, float32], format: ND, shape: [...N]}",
                                       "{name: x, dtypes: [float16, bfloat16, float32], format: ND, shape: [...N], "
                                       "untouched: rows_left}", 1))
    code, out, err = cli("spec", "check", pkg)
    assert code != 0
    assert "inputs[0].untouched: unknown field 'untouched'" in out + err, out + err  # outputs only
