"""MatmulReduceScatter's golden across ranks, in float64 (docs/spec.md, "Multi-rank cases").

Every input arrives as the list of the ranks' tensors (rank order). P = sum_p (x1_p @ x2_p + bias_p); rank r gets
rows [r * M / R, (r + 1) * M / R) of P.
"""

import numpy as np


def matmul_reduce_scatter(x1, x2, bias=None, group="", reduce_op="sum", is_trans_a=False, is_trans_b=False,
                          comm_turn=0, rank_size=0):
    ranks = len(x1)
    total = 0.0
    for r in range(ranks):
        part = x1[r] @ (x2[r].T if is_trans_b else x2[r])
        if bias[r] is not None:
            part = part + bias[r]
        total = total + part
    total = np.asarray(total, np.float64)
    block = total.shape[0] // ranks
    return [{"y": total[r * block:(r + 1) * block]} for r in range(ranks)]
