// AddCustom: z = x + y (half). Each core owns a contiguous range of rows and walks it in blocks of
// dataCopyLen elements: copy x and y in (MTE2), Add (V), copy z out (MTE3).
//   doubleBuffer = 0: one buffer set; every stage waits for the previous one (SetFlag/WaitFlag),
//                     and the next block's copy-in waits for this block's copy-out.
//   doubleBuffer = 1: two buffer sets (ping, pong) with their own event IDs, so that block i+1 is
//                     copied in while block i is added and copied out.
#include "kernel_operator.h"
#include "add_custom_tiling_data.h"

using namespace AscendC;

class KernelAddCustom {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData& t)
    {
        const uint32_t block = GetBlockIdx();
        const uint32_t base = t.totalM / t.splitM;
        const uint32_t rem = t.totalM % t.splitM;
        const uint32_t rows = block < rem ? base + 1 : base;
        const uint32_t start = block < rem ? block * (base + 1) : rem * (base + 1) + (block - rem) * base;
        const uint64_t offset = uint64_t(start) * t.totalN;
        length_ = uint64_t(rows) * t.totalN;
        copyLen_ = t.dataCopyLen;
        double_ = t.doubleBuffer != 0;
        xGm_.SetGlobalBuffer((__gm__ half*)x + offset, length_);
        yGm_.SetGlobalBuffer((__gm__ half*)y + offset, length_);
        zGm_.SetGlobalBuffer((__gm__ half*)z + offset, length_);
        pipe_.InitBuffer(buf_, copyLen_ * sizeof(half) * 3 * (double_ ? 2 : 1));
    }

    __aicore__ inline void Process()
    {
        const uint32_t blocks = static_cast<uint32_t>((length_ + copyLen_ - 1) / copyLen_);
        LocalTensor<half> all = buf_.Get<half>();
        for (uint32_t i = 0; i < blocks; ++i) {
            const uint64_t off = uint64_t(i) * copyLen_;
            const uint32_t len = static_cast<uint32_t>(length_ - off < copyLen_ ? length_ - off : copyLen_);
            const int32_t e = double_ ? static_cast<int32_t>(i % 2) : 0;
            LocalTensor<half> xl = all[(e * 3 + 0) * copyLen_];
            LocalTensor<half> yl = all[(e * 3 + 1) * copyLen_];
            LocalTensor<half> zl = all[(e * 3 + 2) * copyLen_];
            if (double_) {
                if (i >= 2) {
                    WaitFlag<HardEvent::V_MTE2>(e);  // the Add of block i-2 has read this x, y
                }
            } else if (i >= 1) {
                WaitFlag<HardEvent::MTE3_MTE2>(0);  // block i-1 is out: the buffers are free
            }
            DataCopy(xl, xGm_[off], len);
            DataCopy(yl, yGm_[off], len);
            SetFlag<HardEvent::MTE2_V>(e);
            WaitFlag<HardEvent::MTE2_V>(e);
            if (double_ && i >= 2) {
                WaitFlag<HardEvent::MTE3_V>(e);  // z of block i-2 has been copied out
            }
            Add(zl, xl, yl, len);
            if (double_) {
                SetFlag<HardEvent::V_MTE2>(e);
            }
            SetFlag<HardEvent::V_MTE3>(e);
            WaitFlag<HardEvent::V_MTE3>(e);
            DataCopy(zGm_[off], zl, len);
            if (double_) {
                SetFlag<HardEvent::MTE3_V>(e);
            } else if (i + 1 < blocks) {
                SetFlag<HardEvent::MTE3_MTE2>(0);
            }
        }
        if (double_) {  // consume the flags of the last two blocks
            for (uint32_t i = blocks >= 2 ? blocks - 2 : 0; i < blocks; ++i) {
                WaitFlag<HardEvent::V_MTE2>(static_cast<int32_t>(i % 2));
                WaitFlag<HardEvent::MTE3_V>(static_cast<int32_t>(i % 2));
            }
        }
    }

private:
    TPipe pipe_;
    TBuf<TPosition::VECCALC> buf_;
    GlobalTensor<half> xGm_;
    GlobalTensor<half> yGm_;
    GlobalTensor<half> zGm_;
    uint64_t length_ = 0;
    uint32_t copyLen_ = 0;
    bool double_ = false;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    REGISTER_TILING_DEFAULT(AddCustomTilingData);
    GET_TILING_DATA_WITH_STRUCT(AddCustomTilingData, t, tiling);
    (void)workspace;
    KernelAddCustom op;
    op.Init(x, y, z, t);
    op.Process();
}
