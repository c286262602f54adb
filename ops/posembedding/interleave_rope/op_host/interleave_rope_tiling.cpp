// InterleaveRope: the tiling function, run on the host before every launch.
//
// It checks the shapes, picks the tiling key from the broadcast pattern of cos/sin, splits the
// B*N*S rows of x (or, for prefill, the B*S positions) across the vector cores and sizes the UB
// tiles. Its decisions reach the kernel in
// InterleaveRopeTilingData (op_kernel/interleave_rope_tiling_data.h).
//
// Accepted (anything else fails the tiling):
//   x, y       [B, N, S, D], float16 or bfloat16, D even, 2 <= D <= 256
//              (the real op accepts D = 64 only; other even D up to 256 are an opkit extension)
//   cos, sin   the same dtype as x and the same shape as each other:
//              [B, 1, S, D] or [B, 1, 1, D]                (as the real op)
//              [1, 1, S, D] or [1, 1, 1, D] with B > 1     (opkit extension)
#include <algorithm>
#include <cstdint>

#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/interleave_rope_tiling_data.h"

namespace optiling {
namespace {
constexpr size_t X_INDEX = 0;
constexpr size_t COS_INDEX = 1;
constexpr size_t SIN_INDEX = 2;
constexpr size_t RANK = 4;
constexpr int64_t MAX_HIDDEN_DIM = 256;
constexpr uint64_t BLOCK_BYTES = 32;           // UB rows start on 32-byte boundaries
constexpr uint64_t BUFFER_NUM = 2;             // double buffering: BUFFER_NUM in the kernel
constexpr uint64_t MAX_TILE_ROWS = 4095;       // DataCopyPad moves at most 4095 blocks (rows) per call
constexpr uint64_t MAX_TILE_ROWS_UNALIGNED = 2047;  // ... and writes 2 blocks (half-rows) per row when D % 32 != 0
constexpr uint64_t MIN_BYTES_PER_CORE = 4096;  // below this, starting one more core costs more than it saves
constexpr uint64_t MIN_COPY_BYTES = 2048;      // head loop: aim at this many bytes per head in a tile

uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

// UB bytes the kernel allocates for tiles of `rows` rows with `cosRows` cos/sin rows, row pitch xp
// elements of typeSize bytes (half-rows xp / 2 apart). Must match the InitBuffer calls of
// KernelInterleaveRope::Init.
uint64_t UbBytes(uint64_t rows, uint64_t cosRows, uint64_t xp, uint64_t typeSize)
{
    const uint64_t tile = rows * xp;
    const uint64_t table = cosRows * xp;
    return BUFFER_NUM * tile * typeSize * 2         // x in, y out (double-buffered)
           + table * typeSize * 2                   // cos and sin as copied (one buffer each)
           + (tile / 2) * sizeof(float) * 4         // four packed float32 half-row arrays (r, i, a, scratch)
           + (table / 2) * sizeof(float) * 4;       // c1, c2, s1, s2 in float32
}

// Distinct cos/sin rows a tile of `rows` consecutive x rows can touch, per tiling key.
uint64_t CosRowsFor(uint64_t key, uint64_t rows, uint64_t batchRows, uint64_t batches)
{
    switch (key) {
        case INTERLEAVE_ROPE_KEY_B1SD:
        case INTERLEAVE_ROPE_KEY_11SD:
            return rows;  // one per x row (the head-loop keys size their chunks themselves)
        case INTERLEAVE_ROPE_KEY_B11D:
            return std::min(batches, CeilDiv(rows - 1, batchRows) + 1);  // one per batch touched
        default:
            return 1;
    }
}

// The largest n <= limit for which fits(n) holds (fits is monotone: true up to some n); 0 if none.
template <typename Fits>
uint64_t LargestFitting(uint64_t limit, Fits fits)
{
    uint64_t lo = 0;
    uint64_t hi = limit;
    while (lo < hi) {
        const uint64_t mid = (lo + hi + 1) / 2;
        if (fits(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

bool ReadShape(const gert::StorageShape* shape, int64_t dims[RANK])
{
    if (shape == nullptr || shape->GetStorageShape().GetDimNum() != RANK) {
        return false;
    }
    for (size_t i = 0; i < RANK; ++i) {
        dims[i] = shape->GetStorageShape().GetDim(i);
        if (dims[i] < 0) {
            return false;
        }
    }
    return true;
}
}  // namespace

ge::graphStatus TilingInterleaveRope(gert::TilingContext* context)
{
    // 1. The chip: vector cores and UB bytes per core (910B: 192 KiB minus 256 bytes).
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t coreNum = platform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    if (coreNum == 0 || ubSize == 0) {
        return ge::GRAPH_FAILED;
    }

    // 2. Shapes and dtypes.
    int64_t x[RANK];
    int64_t cos[RANK];
    int64_t sin[RANK];
    if (!ReadShape(context->GetInputShape(X_INDEX), x) || !ReadShape(context->GetInputShape(COS_INDEX), cos) ||
        !ReadShape(context->GetInputShape(SIN_INDEX), sin)) {
        return ge::GRAPH_FAILED;  // every tensor is 4-D
    }
    const auto* xDesc = context->GetInputDesc(X_INDEX);
    const auto* cosDesc = context->GetInputDesc(COS_INDEX);
    const auto* sinDesc = context->GetInputDesc(SIN_INDEX);
    if (xDesc == nullptr || cosDesc == nullptr || sinDesc == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const ge::DataType dtype = xDesc->GetDataType();
    if ((dtype != ge::DT_FLOAT16 && dtype != ge::DT_BF16) || cosDesc->GetDataType() != dtype ||
        sinDesc->GetDataType() != dtype) {
        return ge::GRAPH_FAILED;  // fp16 or bf16, the same for all tensors
    }
    const uint64_t typeSize = 2;
    const int64_t batch = x[0];
    const int64_t heads = x[1];
    const int64_t seq = x[2];
    const int64_t dim = x[3];
    if (dim < 2 || dim > MAX_HIDDEN_DIM || dim % 2 != 0) {
        return ge::GRAPH_FAILED;  // D even, 2..256 (the real op: 64 only)
    }
    for (size_t i = 0; i < RANK; ++i) {
        if (cos[i] != sin[i]) {
            return ge::GRAPH_FAILED;  // cos and sin have one shape
        }
    }
    if (cos[1] != 1 || cos[3] != dim || (cos[0] != batch && cos[0] != 1) || (cos[2] != seq && cos[2] != 1)) {
        return ge::GRAPH_FAILED;  // cos is [B|1, 1, S|1, D]
    }

    // 3. The tiling key: the broadcast pattern. Where two keys describe the same data (B = 1, or
    //    S = 1) the real op's pattern wins. With a cos/sin row per position, several heads and
    //    enough positions for copies of MIN_COPY_BYTES per head (prefill), the head-loop variant:
    //    positions are split across cores and cos/sin are read once per position, not per head.
    const uint64_t rowBytes = static_cast<uint64_t>(dim) * typeSize;
    const uint64_t minChunk = std::max<uint64_t>(1, CeilDiv(MIN_COPY_BYTES, rowBytes));
    const bool perBatch = cos[0] == batch;
    const bool perSeq = cos[2] == seq && seq > 1;
    const bool headLoop = perSeq && heads > 1 && static_cast<uint64_t>(seq) >= minChunk;
    uint64_t key = INTERLEAVE_ROPE_KEY_111D;
    if (perSeq) {
        if (headLoop) {
            key = perBatch ? INTERLEAVE_ROPE_KEY_B1SD_HEADS : INTERLEAVE_ROPE_KEY_11SD_HEADS;
        } else {
            key = perBatch ? INTERLEAVE_ROPE_KEY_B1SD : INTERLEAVE_ROPE_KEY_11SD;
        }
    } else if (perBatch) {
        key = INTERLEAVE_ROPE_KEY_B11D;
    }

    InterleaveRopeTilingData* tiling = context->GetTilingData<InterleaveRopeTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *tiling = InterleaveRopeTilingData{};  // the tiling buffer is not zeroed for us
    const uint64_t totalRows = static_cast<uint64_t>(batch) * heads * seq;
    const uint64_t batchRows = std::max<uint64_t>(1, static_cast<uint64_t>(heads) * seq);
    // Half-rows start on 32-byte boundaries in UB: Hp = D/2 rounded up to 16 elements, rows Xp = 2 Hp
    // apart. With D a multiple of 32, Xp = D and tiles are contiguous in UB as in GM.
    const uint64_t blockElems = BLOCK_BYTES / typeSize;  // 16 elements per 32-byte block
    const uint64_t hp = CeilDiv(static_cast<uint64_t>(dim) / 2, blockElems) * blockElems;
    const uint64_t xp = 2 * hp;
    const bool aligned = static_cast<uint64_t>(dim) == xp;
    const uint64_t maxTileRows = aligned ? MAX_TILE_ROWS : MAX_TILE_ROWS_UNALIGNED;
    tiling->totalRows = totalRows;
    tiling->batchRows = batchRows;
    tiling->seqLength = static_cast<uint32_t>(std::max<int64_t>(1, seq));
    tiling->hiddenDim = static_cast<uint32_t>(dim);
    tiling->rowStride = static_cast<uint32_t>(xp);
    tiling->alignedRows = aligned ? 1 : 0;
    tiling->numHeads = static_cast<uint32_t>(std::max<int64_t>(1, heads));
    tiling->headGroup = 1;

    // 4. Work across cores: rows (or positions, for the head loop) in contiguous ranges; at least
    //    MIN_BYTES_PER_CORE of x per core, at most every core. The first formerNum cores take one
    //    unit more than the others. No rows (an empty x) still launches one core, which finds
    //    nothing to do.
    const uint64_t units = headLoop ? static_cast<uint64_t>(batch) * seq : totalRows;
    const uint64_t usedCores = std::max<uint64_t>(
        1, std::min({coreNum, CeilDiv(totalRows * rowBytes, MIN_BYTES_PER_CORE), std::max<uint64_t>(1, units)}));
    const uint64_t baseUnits = units / usedCores;
    tiling->formerNum = static_cast<uint32_t>(units % usedCores);
    tiling->formerRows = baseUnits + 1;
    tiling->tailRows = baseUnits;
    tiling->usedCores = static_cast<uint32_t>(usedCores);
    const uint64_t share = std::max<uint64_t>(1, tiling->formerNum > 0 ? tiling->formerRows : tiling->tailRows);

    // 5. Tile size: the most rows whose buffers (double-buffered x and y queues, packed float32
    //    half-row arrays, cos/sin halves) fit in the UB, no more than a core owns, at most
    //    MAX_TILE_ROWS rows per copy (MAX_TILE_ROWS_UNALIGNED when each row is written as two blocks).
    const uint64_t batches = std::max<int64_t>(1, batch);
    if (headLoop) {
        // A tile is headGroup heads x up to `chunk` positions; the chunk's cos/sin rows stay in UB.
        // All heads at once when the chunk still gets minChunk positions, else fewer heads.
        const uint64_t chunkLimit = std::min({maxTileRows, share, static_cast<uint64_t>(seq)});
        uint64_t group = std::min(static_cast<uint64_t>(heads), MAX_TILE_ROWS);  // heads per strided copy
        auto maxChunk = [&](uint64_t g) {
            return LargestFitting(chunkLimit, [&](uint64_t c) { return UbBytes(g * c, c, xp, typeSize) <= ubSize; });
        };
        while (group > 1 && maxChunk(group) < std::min(minChunk, chunkLimit)) {
            group = CeilDiv(group, 2);
        }
        uint64_t chunk = maxChunk(group);
        if (chunk == 0) {
            return ge::GRAPH_FAILED;
        }
        // As many chunks as that takes, evened out: no short last chunk of a few positions, whose
        // small copies would each cost the fixed start of a transfer.
        chunk = CeilDiv(chunkLimit, CeilDiv(chunkLimit, chunk));
        tiling->headGroup = static_cast<uint32_t>(group);
        tiling->tileRows = static_cast<uint32_t>(group * chunk);
        tiling->cosRows = static_cast<uint32_t>(chunk);
    } else {
        const uint64_t rows = LargestFitting(std::min(maxTileRows, share), [&](uint64_t r) {
            return UbBytes(r, CosRowsFor(key, r, batchRows, batches), xp, typeSize) <= ubSize;
        });
        if (rows == 0) {
            return ge::GRAPH_FAILED;  // not even one row fits (cannot happen for D <= 256)
        }
        tiling->tileRows = static_cast<uint32_t>(rows);
        tiling->cosRows = static_cast<uint32_t>(CosRowsFor(key, rows, batchRows, batches));
    }

    // 6. Launch.
    context->SetTilingKey(key);
    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();  // no workspace of our own
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
