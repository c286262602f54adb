// Prints, as JSON lines, the Matmul tiling opkit's host API computes for a few problems on a
// 910B-like platform (argv: aic cores), for tests/sim_host/test_matmul_tiling.py.
#include <cstdio>
#include <cstdlib>

#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MmProbeTilingData)
TILING_DATA_FIELD_DEF(uint32_t, flag);
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, mm);
TILING_DATA_FIELD_DEF(uint64_t, tail);
END_TILING_DATA_DEF;
}  // namespace optiling

using namespace matmul_tiling;

static void Print(const char* name, long rc, const AscendC::tiling::TCubeTiling& t)
{
    std::printf("{\"case\": \"%s\", \"rc\": %ld, \"usedCoreNum\": %d, \"M\": %d, \"N\": %d, \"Ka\": %d, \"Kb\": %d, "
                "\"singleCoreM\": %d, \"singleCoreN\": %d, \"singleCoreK\": %d, \"baseM\": %d, \"baseN\": %d, \"baseK\": %d, "
                "\"stepKa\": %d, \"stepKb\": %d, \"depthA1\": %d, \"depthB1\": %d, \"isBias\": %d, \"iterateOrder\": %d, "
                "\"dbL0A\": %d, \"dbL0C\": %d}\n",
                name, rc, t.usedCoreNum, t.M, t.N, t.Ka, t.Kb, t.singleCoreM, t.singleCoreN, t.singleCoreK, t.baseM, t.baseN,
                t.baseK, t.stepKa, t.stepKb, t.depthA1, t.depthB1, t.isBias, t.iterateOrder, t.dbL0A, t.dbL0C);
}

int main(int argc, char** argv)
{
    const int aic = argc > 1 ? std::atoi(argv[1]) : 24;
    fe::PlatFormInfos p;
    p.OpkitSet("version", "Short_SoC_version", "Ascend910B");
    p.OpkitSetMem(fe::LocalMemType::L1, 524288);
    p.OpkitSetMem(fe::LocalMemType::L0_A, 65536);
    p.OpkitSetMem(fe::LocalMemType::L0_B, 65536);
    p.OpkitSetMem(fe::LocalMemType::L0_C, 131072);
    p.OpkitSetMem(fe::LocalMemType::UB, 196608);
    platform_ascendc::PlatformAscendC pa(&p);

    struct Case {
        const char* name;
        int m, n, k;
        DataType dt;
        bool bias;
    };
    const Case cases[] = {
        {"fp16_big", 1000, 3000, 777, DataType::DT_FLOAT16, true},
        {"fp32_small", 17, 33, 9, DataType::DT_FLOAT, false},
        {"int8_tall", 4096, 64, 1024, DataType::DT_INT8, false},
        {"bf16_square", 2048, 2048, 4096, DataType::DT_BF16, true},
    };
    for (const Case& c : cases) {
        MultiCoreMatmulTiling mm(pa);
        mm.SetDim(aic);
        mm.SetAType(TPosition::GM, CubeFormat::ND, c.dt);
        mm.SetBType(TPosition::GM, CubeFormat::ND, c.dt);
        mm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        mm.SetShape(c.m, c.n, c.k);
        mm.SetOrgShape(c.m, c.n, c.k);
        mm.SetBias(c.bias);
        AscendC::tiling::TCubeTiling t{};
        Print(c.name, mm.GetTiling(t), t);
    }
    for (int dim : {-1, 0}) {
        // Without SetDim (-1 here) CANN's constructors leave blockDim = 1: a one-core tiling; SetDim(0) is refused.
        MultiCoreMatmulTiling mm(pa);
        if (dim >= 0) mm.SetDim(dim);
        mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        mm.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        mm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        mm.SetShape(256, 128, 512);
        AscendC::tiling::TCubeTiling t{};
        Print(dim < 0 ? "no_set_dim" : "set_dim_zero", mm.GetTiling(t), t);
    }
    {
        MatmulApiTiling mm(pa);
        mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        mm.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16, true);
        mm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        mm.SetOrgShape(512, 512, 256);
        mm.SetShape(128, 256, 256);
        mm.SetTraverse(MatrixTraverse::FIRSTN);
        AscendC::tiling::TCubeTiling t{};
        Print("single_core", mm.GetTiling(t), t);
        mm.SetFixSplit(100, 64, 64);  // baseM not a multiple of 16
        Print("fix_split_misaligned", mm.GetTiling(t), t);
        mm.SetFixSplit(256, 256, 64);  // 256 * 256 float32 = 256 KiB > L0C
        Print("fix_split_too_big", mm.GetTiling(t), t);
        mm.SetFixSplit(64, 128, 32);
        Print("fix_split_ok", mm.GetTiling(t), t);
    }
    {
        // The macro-style class: the same values through SaveToBuffer's bytes.
        MultiCoreMatmulTiling mm(pa);
        mm.SetDim(aic);
        mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        mm.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        mm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        mm.SetShape(1000, 3000, 777);
        mm.SetBias(true);
        optiling::MmProbeTilingData td;
        td.set_flag(7);
        td.set_tail(0x1122334455667788ULL);
        const long rc = mm.GetTiling(td.mm);
        unsigned char buf[512];
        td.SaveToBuffer(buf, sizeof buf);
        AscendC::tiling::TCubeTiling t{};
        std::memcpy(static_cast<void*>(&t), buf + 8, 200);  // the host TCubeTiling is 50 int32: 200 bytes at offset 8
        Print("macro_class", rc, t);
        unsigned long long tail = 0;
        std::memcpy(&tail, buf + 208, 8);
        std::printf("{\"case\": \"macro_layout\", \"size\": %zu, \"tail\": %llu}\n", td.GetDataSize(), tail);
    }
    {
        optiling::SoftMaxTiling sm;
        optiling::TopkTiling tk;
        std::printf("{\"case\": \"library_sizes\", \"softmax\": %zu, \"softmax_kernel\": %zu, \"topk\": %zu}\n",
                    sm.GetDataSize(), sizeof(AscendC::tiling::SoftMaxTiling), tk.GetDataSize());
    }
    return 0;
}
