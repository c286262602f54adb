"""Links between NPUs and the time of a collective over them (modelled; docs/perf.md, "Communication").

Every chip family has one link model: its topology among the ranks of one server (910B: HCCS full
mesh among 8 NPUs; Atlas A3 / 910_93: the double ring among the dies), the effective bandwidth of a
link, the latency of one algorithm step and the launch overhead HCCL's AICPU server adds to every
task it runs (one collective, or one slice of a repeated collective). A collective's time follows
the alpha-beta model of HCCL's algorithm documentation, applied to its algorithm on that topology:

* full mesh (p ranks, every rank sends to all p - 1 peers at once, one link per peer):
  ReduceScatter and AllGather ``launch + alpha + (n / p) / B``, AllReduce = ReduceScatter +
  AllGather = ``launch + 2 alpha + 2 (n / p) / B``, AlltoAll ``launch + alpha + (n / p) / B``;
* ring (p ranks): ReduceScatter and AllGather ``launch + (p - 1) alpha + (p - 1) / p * n / B``,
  AllReduce ``launch + 2 (p - 1) alpha + 2 (p - 1) / p * n / B``, AlltoAll (p - 1 pairwise steps)
  ``launch + (p - 1) (alpha + (n / p) / B)``;

with ``n`` the bytes of one rank's full buffer (AllReduce: the buffer reduced; ReduceScatter: its
input of p blocks; AllGather: its gathered output; AlltoAll: its p outgoing blocks) and ``B`` the
effective bandwidth of one link (mesh) or of the ring. Reductions run inline in the transfers (the
SDMA engines reduce as they write), so no separate reduce term is added.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opkit import soc
from opkit.errors import UsageError

KINDS = ("AllReduce", "AllGather", "ReduceScatter", "AlltoAll")

# Sources, cited by key in every figure below and in docs/perf.md.
SOURCES = {
    "T-hccl": "ops-transformer mc2/common/src/hccl_performance.cpp: HCCL time fits of 8-die runs, time in us "
              "against x MiB of communicated matrix (default / 910B full mesh t = 13.585 x + 61.5 for x >= 8, "
              "an about 18 us floor for tiny x; 910_93 double ring t = 11.38 x + 248.2 for x > 2)",
    "H-algo": "HCCL documentation, collective algorithms: one step of n bytes costs alpha + n beta (+ n gamma "
              "for a reduction); Mesh and Ring formulas of ReduceScatter, AllGather and AllReduce",
    "A-MC2": "Ascend C best practices, MC2 MatmulAllReduce chapter: 8 ranks of A2, M=4096, K=3072, N=8192 fp16: "
             "matmul 803 us + AllReduce 1071 us serial, M cut {512, 4 x 896} fused in 1262 us",
    "3p-hccs": "third-party figures: 910B HCCS about 56 GB/s per link, 8-NPU full mesh (7 links per NPU); "
               "unverified",
}


@dataclass(frozen=True)
class LinkModel:
    """The links of one chip family among the ranks of one server (times in us, bandwidths in GB/s)."""

    family: str  # the OpDef SoC key: ascend910b, ascend910_93
    topology: str  # "mesh" or "ring"
    link_gbps: float  # effective bandwidth of one peer link (mesh) or of the ring (ring), GB/s = 1e3 bytes/us
    alpha_us: float  # latency of one algorithm step of a tiny message
    launch_us: float  # HCCL AICPU server: per task (a collective, or one slice of a repeated one)
    max_ranks: int  # ranks the topology connects (one server)
    # the step latency grows linearly with the bytes of the step up to alpha_large_us at knee_bytes
    # (large messages pay a larger fixed cost per step; 0 = a constant alpha)
    alpha_large_us: float = 0.0
    knee_bytes: float = 0.0
    raw_link_gbps: float | None = None  # the link's nominal bandwidth, where published (informative)
    sources: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"family": self.family, "topology": self.topology, "link_gbps": self.link_gbps,
                "alpha_us": self.alpha_us, "alpha_large_us": self.alpha_large_us or self.alpha_us,
                "knee_bytes": self.knee_bytes, "launch_us": self.launch_us, "max_ranks": self.max_ranks,
                "raw_link_gbps": self.raw_link_gbps, "sources": dict(self.sources)}

    def alpha(self, step_bytes: float) -> float:
        """Latency (us) of one step that moves ``step_bytes`` over a link."""
        if self.knee_bytes <= 0 or self.alpha_large_us <= self.alpha_us:
            return self.alpha_us
        return self.alpha_us + (self.alpha_large_us - self.alpha_us) * min(1.0, step_bytes / self.knee_bytes)


_MIB = float(1 << 20)

# 910B full mesh. T-hccl's slope is the AllReduce of x MiB on 8 ranks: 2 (x / 8) MiB per link in
# 13.585 us per MiB, so one link carries 0.25 MiB in 13.585 us = 19.3 GB/s. The fit's floor (about
# 18 us for a tiny AllReduce) is launch + 2 alpha (how it splits between the two is an estimate); its
# intercept for x >= 8 MiB (61.5 us) is launch + 2 alpha_large, reached at steps of 8 MiB / 8 ranks.
_MESH_910B = LinkModel(
    family="ascend910b", topology="mesh",
    link_gbps=round(0.25 * _MIB / 13.58491263 / 1e3, 2),
    alpha_us=5.0, launch_us=8.0, max_ranks=8, raw_link_gbps=56.0,
    alpha_large_us=round((61.508333 - 8.0) / 2, 2), knee_bytes=_MIB,
    sources={"link_gbps": "T-hccl (910B slope, derived)", "alpha_us": "T-hccl (18 us floor = launch + 2 alpha; "
             "split estimated)", "alpha_large_us": "T-hccl (61.5 us intercept = launch + 2 alpha_large)",
             "knee_bytes": "T-hccl (the fit's 8 MiB boundary, per link step)",
             "launch_us": "T-hccl (floor; split estimated)", "topology": "3p-hccs",
             "raw_link_gbps": "3p-hccs", "formulas": "H-algo"},
)
# Atlas A3 (910_93) double ring. T-hccl's slope: an AllReduce of x MiB on 8 dies moves 2 (7/8) x MiB
# around the ring in 11.38 us per MiB: 161 GB/s for the two rings together; its intercept (248.2 us)
# is launch + 2 (p - 1) alpha with p = 8.
_RING_A3 = LinkModel(
    family="ascend910_93", topology="ring",
    link_gbps=round(1.75 * _MIB / 11.38154641 / 1e3, 2),
    alpha_us=round((248.151561 - 8.0) / 14.0, 2), launch_us=8.0, max_ranks=16,
    sources={"link_gbps": "T-hccl (910_93 slope, derived)", "alpha_us": "T-hccl (910_93 intercept, derived)",
             "launch_us": "as 910B (estimate)", "formulas": "H-algo"},
)
_MODELS = {m.family: m for m in (_MESH_910B, _RING_A3)}


def link_model(chip: str) -> LinkModel:
    """The link model of a chip name or OpDef SoC key (a UsageError for a chip without one)."""
    try:
        family = str(soc.chip(chip).get("opdef_key", chip))
    except KeyError:  # an unknown chip name: the message below says what exists
        family = chip
    model = _MODELS.get(family)
    if model is None:
        raise UsageError(f"{chip}: opkit has no model of the links between its NPUs (modelled: "
                         f"{', '.join(sorted(_MODELS))}); model a multi-rank run on one of those (--soc)")
    return model


def collective_us(kind: str, n_bytes: float, ranks: int, link: LinkModel, *, launch: bool = True) -> float:
    """Modelled time (us) of one collective (or one slice of one) moving ``n_bytes`` per rank (module doc)."""
    if kind not in KINDS:
        raise ValueError(f"unknown collective {kind!r}; one of {', '.join(KINDS)}")
    if ranks > link.max_ranks:
        raise UsageError(f"{ranks} ranks: the {link.topology} of {link.family} connects {link.max_ranks} "
                         f"ranks in one server; opkit does not model the links between servers")
    if ranks <= 1 or n_bytes <= 0:
        return 0.0
    p = float(ranks)
    bw = link.link_gbps * 1e3  # bytes per us
    a = link.alpha(n_bytes / p)  # every step of these algorithms moves n / p bytes over a link
    if link.topology == "mesh":
        step = (n_bytes / p) / bw
        t = 2 * (a + step) if kind == "AllReduce" else a + step
    else:
        part = (p - 1) / p * n_bytes / bw
        if kind == "AllReduce":
            t = 2 * (p - 1) * a + 2 * part
        elif kind == "AlltoAll":
            t = (p - 1) * (a + (n_bytes / p) / bw)
        else:
            t = (p - 1) * a + part
    return t + (link.launch_us if launch else 0.0)


def buffer_bytes(kind: str, slice_bytes: float, ranks: int) -> float:
    """``n`` of :func:`collective_us` from a prepare call's count in bytes (``count * sizeof(dtype)``).

    AllReduce's count is the buffer; ReduceScatter's recvCount, AllGather's sendCount and AlltoAll's
    dataCount are one rank's block, of which a rank's full buffer holds ``ranks``.
    """
    return float(slice_bytes) if kind == "AllReduce" else float(slice_bytes) * ranks


__all__ = ["KINDS", "SOURCES", "LinkModel", "buffer_bytes", "collective_us", "link_model"]
