"""What OP means on the command line (opkit.discover): a package, an op name under ./ops, or a folder of packages."""

from __future__ import annotations

from pathlib import Path

import pytest

from opkit.discover import find_package, resolve_ops
from opkit.errors import UsageError


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel in ("ops/gmm/grouped_matmul", "ops/gmm/grouped_gemm", "ops/moe/moe_gating_top_k"):
        (tmp_path / rel).mkdir(parents=True)
        (tmp_path / rel / "op.yaml").write_text("name: x\n")
    (tmp_path / "ops/gmm/grouped_gemm/.opkit/backup/old").mkdir(parents=True)
    (tmp_path / "ops/gmm/grouped_gemm/.opkit/backup/old/op.yaml").write_text("name: x\n")
    (tmp_path / "empty").mkdir()
    return tmp_path


def test_a_family_folder_names_every_package_under_it(tree):
    got = resolve_ops(["ops/gmm"], tree)
    assert got == [tree / "ops/gmm/grouped_gemm", tree / "ops/gmm/grouped_matmul"]
    both = resolve_ops(["ops/gmm", "grouped_matmul", "ops/moe"], tree)  # no package twice
    assert both == [tree / "ops/gmm/grouped_gemm", tree / "ops/gmm/grouped_matmul", tree / "ops/moe/moe_gating_top_k"]
    assert resolve_ops(["ops"], tree) == resolve_ops(None, tree)


def test_a_command_on_one_package_says_what_a_family_folder_holds(tree):
    with pytest.raises(UsageError, match=r"ops/gmm: this folder is not one operator package but holds 2 "
                                         r"\(grouped_gemm, grouped_matmul\); give one of them"):
        find_package("ops/gmm", tree)
    with pytest.raises(UsageError, match="empty: this folder holds no op.yaml, so it is not an operator package"):
        resolve_ops(["empty"], tree)
    assert find_package("ops/gmm/grouped_matmul", tree) == tree / "ops/gmm/grouped_matmul"
