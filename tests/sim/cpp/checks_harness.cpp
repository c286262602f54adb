// Scenarios for the simulator's hardware-faithful checks. usage: checks_harness SCENARIO
// A line marked "// @name" is where scenario "name" must be reported.
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;
static std::string S;
static uint32_t g_arg = 0;

constexpr uint32_t UB_CAP = 192 * 1024 - 256;

extern "C" __global__ __aicore__ void ub_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    if (S == "ub_exact") {
        pipe.InitBuffer(a, UB_CAP - 1024);
        pipe.InitBuffer(b, 1024);
    } else if (S == "ub_over") {
        pipe.InitBuffer(a, UB_CAP - 1024);
        pipe.InitBuffer(b, 1024 + 1);  // @ub_over
    } else if (S == "ub_over_touched") {
        pipe.InitBuffer(a, UB_CAP - 1024);
        pipe.InitBuffer(b, 1024 + 64);
        LocalTensor<half> t = b.Get<half>();
        Duplicate(t, half(0.5f), 512);             // within the capacity
        Duplicate(t[512], half(0.5f), 32);         // @ub_over_touched
    } else if (S == "ub_past_phys_touched") {
        pipe.InitBuffer(a, UB_CAP - 1024);
        pipe.InitBuffer(b, 2048);                  // ends past the physical 192 KiB
        LocalTensor<half> t = b.Get<half>();
        Duplicate(t[512], half(0.5f), 128);        // the KFC reserve only: a warning
        Duplicate(t[640], half(0.5f), 128);        // @ub_past_phys_touched
    } else if (S == "ub_phys_over") {
        pipe.InitBuffer(a, UB_CAP - 1024);
        // past anything the chip has
        pipe.InitBuffer(b, 256 * 1024);  // @ub_phys_over
    } else if (S == "ub_queue_over") {
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 2, UB_CAP / 2 + 32);  // @ub_queue_over
    } else if (S == "reserved_ub_ok" || S == "reserved_ub_clash") {
        uint32_t keep = S == "reserved_ub_ok" ? UB_CAP - 8192 : UB_CAP - 8192 + 32;
        pipe.InitBuffer(a, keep - 1024);
        pipe.InitBuffer(b, 1024);
        LocalTensor<half> t = b.Get<half>();
        Duplicate(t, half(0.5f), 256);
        Sigmoid(t, t, 256);  // @reserved_ub_clash
    } else if (S == "too_many_que_bufs") {
        TQue<TPosition::VECIN, 1> q1, q2;
        pipe.InitBuffer(q1, 4, 1024);
        pipe.InitBuffer(q2, 5, 1024);  // @too_many_que_bufs
    }
}

// Two buffers one after the other: a write past the end of `a` lands in `b`.
extern "C" __global__ __aicore__ void clobber_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);  // @clobber_victim
    GlobalTensor<half> g;
    g.SetGlobalBuffer((__gm__ half*)x, 1024);
    LocalTensor<half> ta = a.Get<half>(), tb = b.Get<half>();
    Duplicate(tb, half(2.0f), 128);
    Duplicate(ta, half(1.0f), 128 + 16);  // 16 elements (32 B) past a, into b
    PipeBarrier<PIPE_V>();
    if (S == "clobber_healed") {
        Duplicate(tb, half(3.0f), 32);  // b's first bytes written again: the stray write is gone
        PipeBarrier<PIPE_V>();
    }
    if (S == "clobber_elsewhere") {
        Muls(tb[64], tb[64], half(2.0f), 64);  // reads only bytes of b the stray write did not reach
    } else {
        Muls(tb, tb, half(2.0f), 128);  // @clobber_read
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    if (S == "clobber_elsewhere") DataCopy(g, tb[64], 64);
    else DataCopy(g, tb, 128);
}

template <class F>
void with_ub(GM_ADDR x, F f) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    GlobalTensor<half> g;
    g.SetGlobalBuffer((__gm__ half*)x, 1024);
    f(pipe, buf.Get<half>(), g);
}

extern "C" __global__ __aicore__ void move_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    with_ub(x, [&](TPipe& pipe, LocalTensor<half> t, GlobalTensor<half> g) {
        if (S == "misaligned") {
            DataCopy(t[8], g, 16);  // @misaligned
        } else if (S == "len32") {
            DataCopy(t, g, 24);  // @len32
        } else if (S == "gm_oob") {
            DataCopy(t, g[2048 - 64], 128);  // @gm_oob
        } else if (S == "gm_oob_out") {
            DataCopy(t, g, 128);
            SetFlag<HardEvent::MTE2_MTE3>(0);
            WaitFlag<HardEvent::MTE2_MTE3>(0);
            DataCopy(g[2048 - 16], t, 32);  // @gm_oob_out
        } else if (S == "gm_getvalue_oob") {
            half v = g.GetValue(2048);  // @gm_getvalue_oob
            (void)v;
        } else if (S == "local_oob") {
            DataCopy(t, g, 1024);
            SetFlag<HardEvent::MTE2_V>(0);
            WaitFlag<HardEvent::MTE2_V>(0);
            LocalTensor<half> small = t[2048 - 64];
            Add(small, small, small, 128);  // @local_oob
        } else if (S == "local_oob_past_ub") {
            TBuf<TPosition::VECCALC> rest;
            pipe.InitBuffer(rest, UB_CAP - 4096 - 256);
            LocalTensor<half> last = rest.Get<half>()[(UB_CAP - 4096 - 256) / 2 - 64];
            // past the physical UB
            Duplicate(last, half(1.0f), 384);  // @local_oob_past_ub
        } else if (S == "local_getvalue_oob") {
            LocalTensor<half> s = t[2048 - 16];
            s.SetValue(16, half(1.0f));  // @local_getvalue_oob
        } else if (S == "uninit_to_gm") {
            t.SetValue(0, half(1.0f));
            SetFlag<HardEvent::S_MTE3>(0);
            WaitFlag<HardEvent::S_MTE3>(0);
            DataCopy(g, t, 16);  // @uninit_to_gm
        } else if (S == "uninit_scalar") {
            half v = t.GetValue(5);  // @uninit_scalar
            (void)v;
        } else if (S == "sort_index_written" || S == "sort_index_unwritten") {
            // 32 scores, 8 real (the rest -inf), indices only for the 8 real ones (as moe_gating_top_k does)
            LocalTensor<float> sc = t.ReinterpretCast<float>(), out = sc[256];
            LocalTensor<uint32_t> ix = sc[64].ReinterpretCast<uint32_t>();
            Duplicate(sc, -1.0f / 0.0f, 32);
            PipeBarrier<PIPE_V>();
            Duplicate(sc, 2.0f, 8);
            CreateVecIndex(ix.ReinterpretCast<int32_t>(), int32_t(0), 8);
            PipeBarrier<PIPE_V>();
            Sort32(out, sc, ix, 1);
            SetFlag<HardEvent::V_S>(0);
            WaitFlag<HardEvent::V_S>(0);
            uint32_t first = out.ReinterpretCast<uint32_t>().GetValue(1);  // index of the best pair: written
            float tail = out.GetValue(2 * 31);  // score of the last pair (-inf): written
            uint32_t v = S == "sort_index_written" ? first : out.ReinterpretCast<uint32_t>().GetValue(2 * 31 + 1);  // @sort_index_unwritten
            (void)tail; (void)v;
        } else if (S == "uninit_vector_warns") {
            DataCopy(t, g, 64);
            SetFlag<HardEvent::MTE2_V>(0);
            WaitFlag<HardEvent::MTE2_V>(0);
            Add(t[128], t, t[64], 64);  // @uninit_vector_warns
        } else if (S == "partial_overlap") {
            DataCopy(t, g, 256);
            SetFlag<HardEvent::MTE2_V>(0);
            WaitFlag<HardEvent::MTE2_V>(0);
            Adds(t, t, half(1.0f), 128);  // in place: fine
            Adds(t[16], t, half(1.0f), 128);  // @partial_overlap
        } else if (S == "sync_missing_mte2_v") {
            DataCopy(t, g, 64);
            Muls(t[64], t, half(2.0f), 64);  // @sync_missing_mte2_v
        } else if (S == "sync_missing_v_s") {
            DataCopy(t, g, 64);
            SetFlag<HardEvent::MTE2_V>(0);
            WaitFlag<HardEvent::MTE2_V>(0);
            Muls(t[64], t, half(2.0f), 64);
            half v = t.GetValue(64);  // @sync_missing_v_s
            (void)v;
        } else if (S == "sync_missing_mte3_mte2") {
            DataCopy(t, g, 64);
            SetFlag<HardEvent::MTE2_MTE3>(0);
            WaitFlag<HardEvent::MTE2_MTE3>(0);
            DataCopy(g[512], t, 64);
            DataCopy(t, g[64], 64);  // @sync_missing_mte3_mte2
        } else if (S == "sync_ok_barrier") {
            DataCopy(t, g, 64);
            PipeBarrier<PIPE_ALL>();
            Muls(t[64], t, half(2.0f), 64);
            PipeBarrier<PIPE_ALL>();
            DataCopy(g[64], t[64], 64);
        } else if (S == "wait_without_set") {
            WaitFlag<HardEvent::V_MTE3>(1);  // @wait_without_set
        } else if (S == "pad_values") {
            // 3 blocks of 5 halves, GM gap 6 B (3 elements), padded to 32 B in UB
            DataCopyExtParams p(3, 10, 6, 0, 0);
            DataCopyPadExtParams<half> pad(true, 2, 3, half(-1.0f));
            DataCopyPad(t, g, p, pad);
            SetFlag<HardEvent::MTE2_MTE3>(0);
            WaitFlag<HardEvent::MTE2_MTE3>(0);
            DataCopyPad(g[512], t, DataCopyExtParams(3, 20, 0, 0, 0));  // 10 halves of every 32-B block
        } else if (S == "pad_dummy_undefined") {
            DataCopyExtParams p(1, 10, 0, 0, 0);
            DataCopyPadExtParams<half> pad(false, 1, 0, half(0.0f));
            DataCopyPad(t, g, p, pad);
            SetFlag<HardEvent::MTE2_MTE3>(0);
            WaitFlag<HardEvent::MTE2_MTE3>(0);
            DataCopy(g[512], t, 16);  // @pad_dummy_undefined
        } else if (S == "pad_no_padding_defined") {
            DataCopyExtParams p(2, 6, 0, 0, 0);
            DataCopyPadExtParams<half> pad(false, 0, 0, half(0.0f));
            DataCopyPad(t, g, p, pad);
            SetFlag<HardEvent::MTE2_MTE3>(0);
            WaitFlag<HardEvent::MTE2_MTE3>(0);
            DataCopy(g[512], t, 32);
        } else if (S == "raw_gm_overrun") {
            ((__gm__ half*)g.GetPhyAddr())[2048 + 3] = half(1.0f);  // bypasses every API
        } else if (S == "misc_api") {
            // TBuf::GetWithOffset, LocalTensor sizes, ReinterpretCast, legacy DataCopyPad params,
            // InitGlobalMemory/InitOutput, Reset/FetchEventID/AllocEventID, GetTPipePtr
            TPipe& pp = *GetTPipePtr();
            TBuf<TPosition::VECCALC> tb;
            pp.InitBuffer(tb, 1024);
            LocalTensor<float> f = tb.GetWithOffset<float>(64, 256);
            if (f.GetSize() != 64 || f.GetPhyAddr() != 4096 + 256) std::_Exit(11);
            f.SetSize(32);
            if (f.GetSize() != 32 || f.ReinterpretCast<half>().GetSize() != 64) std::_Exit(12);
            uint32_t shp[2] = {4, 8};
            f.SetShapeInfo(ShapeInfo(2, shp));
            if (f.GetShapeInfo().shape[1] != 8) std::_Exit(13);
            DataCopyPad(t, g, DataCopyParams(2, 6, 2, 0), DataCopyPadParams(true, 0, 2, 0x3C00));  // pad value 1.0h
            TEventID e = pp.FetchEventID(HardEvent::MTE2_MTE3);
            SetFlag<HardEvent::MTE2_MTE3>(e);
            WaitFlag<HardEvent::MTE2_MTE3>(e);
            DataCopyPad(g[512], t, DataCopyParams(2, 10, 0, 0));
            TEventID a = pp.AllocEventID<HardEvent::V_MTE3>();
            TEventID b = pp.AllocEventID<HardEvent::V_MTE3>();
            if (a == b) std::_Exit(14);
            pp.ReleaseEventID<HardEvent::V_MTE3>(a);
            pp.ReleaseEventID<HardEvent::V_MTE3>(b);
            GlobalTensor<int32_t> gi;
            gi.SetGlobalBuffer((__gm__ int32_t*)g.GetPhyAddr() + 768, 16);
            InitGlobalMemory(gi, 8, int32_t(-5));
            InitOutput(gi[8], 8, int32_t(9));
        } else if (S == "printf") {
            DataCopy(t, g, 16);
            SetFlag<HardEvent::MTE2_S>(0);
            WaitFlag<HardEvent::MTE2_S>(0);
            AscendC::printf("value %d of block %d\n", int(float(t.GetValue(3))), int(GetBlockIdx()));
            DumpTensor(t, 5, 4);
        } else if (S == "params_copy") {
            // 4 blocks of 1 x 32 B, skipping 1 block in GM, packed in UB
            DataCopy(t, g, DataCopyParams(4, 1, 1, 0));
            SetFlag<HardEvent::MTE2_MTE3>(0);
            WaitFlag<HardEvent::MTE2_MTE3>(0);
            DataCopy(g[512], t, DataCopyParams(1, 4, 0, 0));
        }
    });
}

extern "C" __global__ __aicore__ void queue_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 2, 1024);
    GlobalTensor<half> g;
    g.SetGlobalBuffer((__gm__ half*)x, 1024);
    if (S == "deque_empty") {
        LocalTensor<half> t = q.DeQue<half>();  // @deque_empty
        (void)t;
    } else if (S == "alloc_exhausted") {
        LocalTensor<half> a = q.AllocTensor<half>();
        LocalTensor<half> b = q.AllocTensor<half>();
        LocalTensor<half> c = q.AllocTensor<half>();  // @alloc_exhausted
        (void)a; (void)b; (void)c;
    } else if (S == "enque_depth") {
        LocalTensor<half> a = q.AllocTensor<half>();
        LocalTensor<half> b = q.AllocTensor<half>();
        q.EnQue(a);
        q.EnQue(b);  // @enque_depth
    } else if (S == "double_free") {
        LocalTensor<half> a = q.AllocTensor<half>();
        q.FreeTensor(a);
        q.FreeTensor(a);  // @double_free
    } else if (S == "never_freed") {
        LocalTensor<half> a = q.AllocTensor<half>();  // @never_freed
        (void)a;
    } else if (S == "que_events_enqueued" || S == "que_events_freed" || S == "que_events_reused") {
        // Nine one-buffer VECOUT queues (9 QUE buffers on one TPosition, one over the documented 8). A buffer
        // holds a V_MTE3 event from EnQue to DeQue and an MTE3_V event from FreeTensor to its next AllocTensor.
        TQue<TPosition::VECOUT, 1> o[9];
        for (auto& qq : o) pipe.InitBuffer(qq, 1, 256);
        for (int i = 0; i < 9; ++i) {
            LocalTensor<half> t = o[S == "que_events_reused" ? 0 : i].AllocTensor<half>();
            Duplicate(t, half(1.0f), 128);
            if (S == "que_events_enqueued") {
                o[i].EnQue(t);  // @que_events_enqueued
                continue;
            }
            o[S == "que_events_reused" ? 0 : i].EnQue(t);
            LocalTensor<half> u = o[S == "que_events_reused" ? 0 : i].DeQue<half>();
            DataCopy(g[i * 128], u, 128);
            o[S == "que_events_reused" ? 0 : i].FreeTensor(u);  // @que_events_freed
        }
        if (S == "que_events_enqueued")
            for (int i = 0; i < 8; ++i) { LocalTensor<half> u = o[i].DeQue<half>(); o[i].FreeTensor(u); }
    } else if (S == "que_bind_copy") {
        // VECIN -> VECOUT bound queue: DataCopy in (MTE2), EnQue/DeQue, DataCopy out (MTE3)
        TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> qb;
        pipe.InitBuffer(qb, 1, 512);
        LocalTensor<half> a = qb.AllocTensor<half>();
        DataCopy(a, g, 256);
        qb.EnQue(a);
        LocalTensor<half> b = qb.DeQue<half>();
        DataCopy(g[512], b, 256);
        qb.FreeTensor(b);
    } else if (S == "que_user_pos_copy") {
        // TQueBind::EnQue/DeQue<srcUserPos, dstUserPos, T>: copied in on MTE2, out on MTE3 (UB -> UB: MTE2_MTE3),
        // two buffers through a depth-1 queue
        TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> qb;
        pipe.InitBuffer(qb, 2, 512);
        for (int i = 0; i < 4; ++i) {
            LocalTensor<half> a = qb.AllocTensor<half>();
            DataCopy(a, g[i * 128], 128);
            qb.EnQue<TPosition::VECIN, TPosition::VECOUT, half>(a);
            LocalTensor<half> b = qb.DeQue<TPosition::VECIN, TPosition::VECOUT, half>();
            DataCopy(g[512 + i * 128], b, 128);
            qb.FreeTensor(b);
        }
    } else if (S == "que_user_pos_gm_ub") {
        // a VECOUT queue used as GM -> UB: the DeQue orders MTE2 before the vector unit
        TQue<TPosition::VECOUT, 1> qo;
        pipe.InitBuffer(qo, 1, 512);
        LocalTensor<half> a = qo.AllocTensor<half>();
        DataCopy(a, g, 128);
        qo.EnQue<TPosition::GM, TPosition::VECOUT, half>(a);
        LocalTensor<half> b = qo.DeQue<TPosition::GM, TPosition::VECOUT, half>();
        Adds(b, b, half(1.0f), 128);
        PipeBarrier<PIPE_ALL>();
        DataCopy(g[512], b, 128);
        qo.FreeTensor(b);
    } else if (S == "que_user_pos_orders_user_pipes") {
        // VECIN -> VECOUT user positions order MTE2 before MTE3 only: vector work after this DeQue is unordered
        LocalTensor<half> a = q.AllocTensor<half>();
        DataCopy(a, g, 128);
        q.EnQue<TPosition::VECIN, TPosition::VECOUT, half>(a);
        LocalTensor<half> b = q.DeQue<TPosition::VECIN, TPosition::VECOUT, half>();
        Adds(b, b, half(1.0f), 128);  // @que_user_pos_orders_user_pipes
        q.FreeTensor(b);
    } else if (S == "que_user_pos_mismatch") {
        LocalTensor<half> a = q.AllocTensor<half>();
        DataCopy(a, g, 128);
        q.EnQue<TPosition::VECIN, TPosition::VECOUT, half>(a);
        LocalTensor<half> b = q.DeQue<TPosition::GM, TPosition::VECIN, half>();  // @que_user_pos_mismatch
        q.FreeTensor(b);
    } else if (S == "que_user_pos_plain_deque") {
        LocalTensor<half> a = q.AllocTensor<half>();
        DataCopy(a, g, 128);
        q.EnQue<TPosition::VECIN, TPosition::VECOUT, half>(a);
        LocalTensor<half> b = q.DeQue<half>();  // @que_user_pos_plain_deque
        q.FreeTensor(b);
    } else if (S == "double_buffer_depth1") {
        // num = 2 buffers, depth 1: a full ping-pong pipeline works
        TQue<TPosition::VECOUT, 1> qo;
        pipe.InitBuffer(qo, 2, 1024);
        for (int i = 0; i < 4; ++i) {
            LocalTensor<half> a = q.AllocTensor<half>();
            DataCopy(a, g[i * 128], 128);
            q.EnQue(a);
            LocalTensor<half> b = q.DeQue<half>();
            LocalTensor<half> o = qo.AllocTensor<half>();
            Adds(o, b, half(1.0f), 128);
            qo.EnQue(o);
            q.FreeTensor(b);
            LocalTensor<half> r = qo.DeQue<half>();
            DataCopy(g[512 + i * 128], r, 128);
            qo.FreeTensor(r);
        }
    }
}

KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
extern "C" __global__ __aicore__ void sync_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    if (S == "syncall_ok") {
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)x, 64);
        g.SetValue(GetBlockIdx(), int32_t(GetBlockIdx() + 1));
        SyncAll();
        int32_t s = 0;
        for (int i = 0; i < GetBlockNum(); ++i) s += g.GetValue(i);
        g.SetValue(16 + GetBlockIdx(), s);
    } else if (S == "syncall_deadlock") {
        if (GetBlockIdx() == 2) return;
        SyncAll();  // @syncall_deadlock
    } else if (S == "syncall_watchdog") {
        if (GetBlockIdx() == 1) {
            volatile int spin = 1;
            while (spin) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        SyncAll();  // @syncall_watchdog
    } else if (S == "kernel_hang") {
        if (GetBlockIdx() == 3) {
            volatile int spin = 1;
            while (spin) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    } else if (S == "atomic_add") {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        Duplicate(t, float(GetBlockIdx() + 1), 64);
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)x, 64);
        SetAtomicAdd<float>();
        DataCopy(g, t, 64);
        SetAtomicNone();
    } else if (S == "workspace_small") {
        GM_ADDR u = GetUserWorkspace(ws);  // @workspace_small
        (void)u;
    } else if (S == "workspace_ok") {
        GM_ADDR u = GetUserWorkspace(ws);
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)u, 8);
        g.SetValue(0, 42);
        if (GetSysWorkSpacePtr() != ws) std::_Exit(5);
    } else if (S == "tiling_member") {
        struct Inner { int32_t p; int32_t q; };
        struct TD { int64_t head; Inner inner; };
        GET_TILING_DATA_MEMBER(TD, inner, in, tiling);
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)x, 64);
        g.SetValue(0, in.p * 100 + in.q);
    } else if (S == "tiling_key") {
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)x, 64);
        if (TILING_KEY_IS(1)) g.SetValue(0, 1);
        else if (TILING_KEY_IS(7)) g.SetValue(0, 7);
    }
}

extern "C" __global__ __aicore__ void mix_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t*)x, 1024);
    if (S == "mix_ids") {
        if ASCEND_IS_AIC {
            g.SetValue(100 + GetBlockIdx(), int32_t(1000 + GetBlockNum() * 100 + GetTaskRatio() * 10));
        } else {
            g.SetValue(200 + GetBlockIdx(), int32_t(GetBlockIdx() * 100 + GetSubBlockIdx() * 10 + GetTaskRatio()));
        }
    } else if (S == "mix_crosscore") {
        if ASCEND_IS_AIV {
            g.SetValue(300 + GetBlockIdx(), int32_t(GetBlockIdx() + 1));
            CrossCoreSetFlag<2, PIPE_MTE3>(3);
            CrossCoreWaitFlag(4);
            g.SetValue(400 + GetBlockIdx(), g.GetValue(500 + GetBlockIdx() / 2));
        } else {
            CrossCoreWaitFlag(3);
            int32_t sum = g.GetValue(300 + 2 * GetBlockIdx()) + g.GetValue(301 + 2 * GetBlockIdx());
            g.SetValue(500 + GetBlockIdx(), sum);
            CrossCoreSetFlag<2, PIPE_FIX>(4);
        }
    } else if (S == "mix_syncall_false") {
        int32_t me = ASCEND_IS_AIC ? int32_t(GetBlockIdx()) : int32_t(10 + GetBlockIdx());
        g.SetValue(600 + (ASCEND_IS_AIC ? 0 : 10) + GetBlockIdx(), me);
        SyncAll<false>();
        int32_t s = 0;
        for (int i = 0; i < 3; ++i) s += g.GetValue(600 + i);
        for (int i = 0; i < 6; ++i) s += g.GetValue(610 + i);
        g.SetValue(700 + (ASCEND_IS_AIC ? 0 : 10) + GetBlockIdx(), s);
    } else if (S == "mix_crosscore_mode0") {
        // mode 0: every AIV waits until all AIVs have set the flag (AICs likewise among themselves)
        if ASCEND_IS_AIV {
            g.SetValue(800 + GetBlockIdx(), int32_t(GetBlockIdx() + 1));
            CrossCoreSetFlag<0, PIPE_MTE3>(6);
            CrossCoreWaitFlag(6);
            int32_t s = 0;
            for (int i = 0; i < 6; ++i) s += g.GetValue(800 + i);
            g.SetValue(810 + GetBlockIdx(), s);
        } else {
            g.SetValue(820 + GetBlockIdx(), int32_t(10 * (GetBlockIdx() + 1)));
            CrossCoreSetFlag<0, PIPE_FIX>(6);
            CrossCoreWaitFlag(6);
            g.SetValue(825 + GetBlockIdx(), g.GetValue(820) + g.GetValue(821) + g.GetValue(822));
        }
    } else if (S == "mix_crosscore_mode1") {
        // mode 1: the two AIVs of one AI core wait for each other
        if ASCEND_IS_AIV {
            g.SetValue(830 + GetBlockIdx(), int32_t(100 + GetBlockIdx()));
            CrossCoreSetFlag<1, PIPE_MTE3>(7);
            CrossCoreWaitFlag(7);
            g.SetValue(840 + GetBlockIdx(), g.GetValue(830 + (GetBlockIdx() ^ 1)));
        }
    } else if (S == "mix_ub_kfc_touched") {
        if ASCEND_IS_AIV {
            TPipe pipe;
            TBuf<TPosition::VECCALC> a, b;
            pipe.InitBuffer(a, UB_CAP - 1024);
            pipe.InitBuffer(b, 1024 + 64);
            Duplicate(b.Get<half>()[512], half(0.5f), 32);  // @mix_ub_kfc_touched
        }
    } else if (S == "mix_vector_on_aic_is_noop") {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<int32_t> t = b.Get<int32_t>();
        Duplicate(t, int32_t(ASCEND_IS_AIC ? 77 : 5), 64);
        PipeBarrier<PIPE_ALL>();
        DataCopy(g[800 + (ASCEND_IS_AIC ? 64 : 0)], t, 64);
    } else if (S == "crosscore_deadlock") {
        if ASCEND_IS_AIC {
            CrossCoreWaitFlag(5);  // @crosscore_deadlock
        }
    }
}

extern "C" __global__ __aicore__ void crosscore_aiv_only(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    CrossCoreSetFlag<0, PIPE_MTE3>(1);  // @crosscore_aiv_only
}

template <int k>
__global__ __aicore__ void tpl_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    struct TD { int32_t a; int32_t b; };
    REGISTER_TILING_DEFAULT(TD);
    GET_TILING_DATA(td, tiling);
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t*)x, 64);
    g.SetValue(GetBlockIdx(), td.a * k + td.b);
}

int main(int argc, char** argv) {
    S = argv[1];
    // The same scenarios in trace-only mode (no arithmetic, no data bytes, no written-state checks).
    if (const char* t = std::getenv("OPKIT_TEST_TRACE_ONLY")) opkit::sim::set_trace_only(t[0] == '1');
    uint8_t* x = (uint8_t*)GmAlloc(4096);
    for (int i = 0; i < 2048; ++i) ((half*)x)[i] = half(float(i % 100));
    uint8_t* tiling = (uint8_t*)GmAlloc(64);
    std::memset(tiling, 0, 64);
    size_t wsz = (S == "workspace_small") ? 1024 * 1024 : 16 * 1024 * 1024 + 1024;
    uint8_t* ws = (uint8_t*)GmAlloc(wsz);
    if (S.rfind("clobber", 0) == 0) ICPU_RUN_KF(clobber_kernel, 1, x, ws, tiling);
    else if (S.rfind("ub_", 0) == 0 || S == "too_many_que_bufs" || S.rfind("reserved_ub", 0) == 0) ICPU_RUN_KF(ub_kernel, 1, x, ws, tiling);
    else if (S == "deque_empty" || S == "alloc_exhausted" || S == "enque_depth" || S == "double_free" || S == "never_freed" ||
             S == "double_buffer_depth1" || S == "que_bind_copy" || S.rfind("que_events", 0) == 0 ||
             S.rfind("que_user_pos", 0) == 0)
        ICPU_RUN_KF(queue_kernel, 1, x, ws, tiling);
    else if (S.rfind("syncall", 0) == 0 || S == "atomic_add" || S.rfind("workspace", 0) == 0 || S == "kernel_hang") {
        if (S == "atomic_add") std::memset(x, 0, 4096);
        ICPU_RUN_KF(sync_kernel, 4, x, ws, tiling);
    } else if (S == "tiling_member") {
        ((int64_t*)tiling)[0] = -1;
        ((int32_t*)tiling)[2] = 4;
        ((int32_t*)tiling)[3] = 2;
        ICPU_RUN_KF(sync_kernel, 1, x, ws, tiling);
    } else if (S == "tiling_key") {
        ICPU_SET_TILING_KEY(7);
        ICPU_RUN_KF(sync_kernel, 1, x, ws, tiling);
    } else if (S.rfind("mix_", 0) == 0 || S == "crosscore_deadlock") {
        SetKernelMode(KernelMode::MIX_MODE);
        std::memset(x, 0, 4096);
        ICPU_RUN_KF(mix_kernel, 3, x, ws, tiling);
    } else if (S == "crosscore_aiv_only") {
        ICPU_RUN_KF(crosscore_aiv_only, 2, x, ws, tiling);
    } else if (S == "template_kernel") {
        ((int32_t*)tiling)[0] = 10;
        ((int32_t*)tiling)[1] = 3;
        ICPU_RUN_KF(tpl_kernel<2>, 3, x, ws, tiling);
    } else ICPU_RUN_KF(move_kernel, 1, x, ws, tiling);
    if (S == "raw_gm_overrun") AscendC::GmFree(x);
    fwrite(x, 1, 4096, stdout);
    return 0;
}
