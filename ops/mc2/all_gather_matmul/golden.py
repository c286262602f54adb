"""AllGatherMatmul's golden across ranks, in float64 (docs/spec.md, "Multi-rank cases").

Every input arrives as the list of the ranks' tensors (rank order). On every rank gather_out is the ranks' x1
stacked in rank order (an exact copy) and y = gather_out @ x2 + bias with that rank's own x2 and bias.
"""

import numpy as np


def all_gather_matmul(x1, x2, bias=None, group="", is_trans_a=False, is_trans_b=False, gather_index=0, comm_turn=0,
                      rank_size=0, is_gather_out=True):
    gathered = np.concatenate([np.asarray(x, np.float64) for x in x1], axis=0)
    out = []
    for r in range(len(x1)):
        y = gathered @ (x2[r].T if is_trans_b else x2[r])
        if bias[r] is not None:
            y = y + bias[r]
        one = {"y": y}
        if is_gather_out:
            one["gather_out"] = gathered
        out.append(one)
    return out
