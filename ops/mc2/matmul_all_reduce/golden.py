"""MatmulAllReduce's golden across ranks, in float64 (docs/spec.md, "Multi-rank cases").

Every input arrives as the list of the ranks' tensors (rank order); every rank's y is the same sum over the
ranks of x1 @ x2 + bias + x3 (ops-transformer's documented formula: bias and x3 are added on each rank before
the reduce).
"""

import numpy as np


def matmul_all_reduce(x1, x2, bias=None, x3=None, group="", reduce_op="sum", is_trans_a=False, is_trans_b=False,
                      comm_turn=0):
    total = 0.0
    for r in range(len(x1)):
        part = x1[r] @ (x2[r].T if is_trans_b else x2[r])
        if bias[r] is not None:
            part = part + bias[r]
        if x3[r] is not None:
            part = part + x3[r]
        total = total + part
    return [{"y": np.asarray(total, np.float64)} for _ in x1]
