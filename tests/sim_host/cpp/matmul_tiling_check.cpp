// Prints, as JSON lines, the Matmul tiling opkit's host API computes for a few problems on a
// 910B-like platform (argv: aic cores), for tests/sim_host/test_matmul_tiling.py; with argv
// "grid", one tiling per line of stdin ("key=value ..." settings, see RunGrid) with every field.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

static int RunGrid(platform_ascendc::PlatformAscendC& pa);

int main(int argc, char** argv)
{
    const bool grid = argc > 1 && std::string(argv[1]) == "grid";
    const int aic = argc > 1 && !grid ? std::atoi(argv[1]) : 24;
    fe::PlatFormInfos p;
    p.OpkitSet("version", "Short_SoC_version", "Ascend910B");
    p.OpkitSetMem(fe::LocalMemType::L1, 524288);
    p.OpkitSetMem(fe::LocalMemType::L0_A, 65536);
    p.OpkitSetMem(fe::LocalMemType::L0_B, 65536);
    p.OpkitSetMem(fe::LocalMemType::L0_C, 131072);
    p.OpkitSetMem(fe::LocalMemType::UB, 196608);
    platform_ascendc::PlatformAscendC pa(&p);
    if (grid) return RunGrid(pa);

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
        // baseM not a multiple of 16: SetFixSplit itself returns -1 and keeps the tiling's own split
        Print("fix_split_misaligned", mm.SetFixSplit(100, 64, 64), t);
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

// ---- grid mode: one tiling per stdin line of key=value settings -------------------------------
// cls=api|multi|batch m n k (SetShape) org=M,N,Ka,Kb a b c bias (dtypes: fp16 bf16 fp32 int8 int4 int32)
// ta tb (transposes) fa fb (ND|NZ) cpos apos bpos (GM|VECIN|VECCALC|TSCM) isbias dim fix=bm,bn,bk
// buf=l1,l0c,ub,bt buf2=(a second call) range=maxM,maxN,maxK single=sm,sn,sk align=am,an,ak splitk traverse=M|N
// batch=bm,bn singlebatch=sm,sn noplat (MatmulApiTiling without a platform)
static DataType Dt(const std::string& s)
{
    static const std::map<std::string, DataType> m = {
        {"fp16", DataType::DT_FLOAT16}, {"bf16", DataType::DT_BF16}, {"fp32", DataType::DT_FLOAT},
        {"int8", DataType::DT_INT8},    {"int4", DataType::DT_INT4}, {"int32", DataType::DT_INT32},
        {"fp8", DataType::DT_FLOAT8_E4M3FN}};
    return m.at(s);
}
static TPosition Pos(const std::string& s)
{
    static const std::map<std::string, TPosition> m = {
        {"GM", TPosition::GM}, {"VECIN", TPosition::VECIN}, {"VECCALC", TPosition::VECCALC},
        {"VECOUT", TPosition::VECOUT}, {"TSCM", TPosition::TSCM}};
    return m.at(s);
}
static std::vector<int> Ints(const std::string& s)
{
    std::vector<int> v;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ',')) v.push_back(std::atoi(x.c_str()));
    return v;
}

template <class MM>
static void Common(MM& mm, std::map<std::string, std::string>& kv, std::string& rcs)
{
    auto get = [&](const char* k, const char* d) { return kv.count(k) ? kv[k] : std::string(d); };
    const CubeFormat fa = get("fa", "ND") == "NZ" ? CubeFormat::NZ : CubeFormat::ND;
    const CubeFormat fb = get("fb", "ND") == "NZ" ? CubeFormat::NZ : CubeFormat::ND;
    mm.SetAType(Pos(get("apos", "GM")), fa, Dt(get("a", "fp16")), get("ta", "0") == "1");
    mm.SetBType(Pos(get("bpos", "GM")), fb, Dt(get("b", "fp16")), get("tb", "0") == "1");
    mm.SetCType(Pos(get("cpos", "GM")), CubeFormat::ND, Dt(get("c", "fp32")));
    mm.SetBiasType(TPosition::GM, CubeFormat::ND, Dt(get("bias", "fp32")));
    mm.SetShape(std::atoi(get("m", "-1").c_str()), std::atoi(get("n", "-1").c_str()), std::atoi(get("k", "-1").c_str()));
    if (kv.count("org")) {
        auto o = Ints(kv["org"]);
        mm.SetOrgShape(o[0], o[1], o[2], o.size() > 3 ? o[3] : o[2]);
    }
    mm.SetBias(get("isbias", "0") == "1");
    if (kv.count("traverse")) mm.SetTraverse(kv["traverse"] == "N" ? MatrixTraverse::FIRSTN : MatrixTraverse::FIRSTM);
    if (kv.count("buf")) {
        auto b = Ints(kv["buf"]);
        rcs += ", \"rc_buf\": " + std::to_string(mm.SetBufferSpace(b[0], b[1], b[2], b[3]));
    }
    if (kv.count("buf2")) {  // a second SetBufferSpace
        auto b = Ints(kv["buf2"]);
        rcs += ", \"rc_buf2\": " + std::to_string(mm.SetBufferSpace(b[0], b[1], b[2], b[3]));
    }
    if (kv.count("range")) {
        auto r = Ints(kv["range"]);
        mm.SetSplitRange(r[0], r[1], r[2]);
    }
    if (kv.count("fix")) {
        auto f = Ints(kv["fix"]);
        rcs += ", \"rc_fix\": " + std::to_string(mm.SetFixSplit(f[0], f[1], f[2]));
    }
}

static void PrintAll(const std::string& name, long rc, const AscendC::tiling::TCubeTiling& t, const std::string& extra)
{
    std::printf("{\"case\": \"%s\", \"rc\": %ld%s", name.c_str(), rc, extra.c_str());
#define OPKIT_P(f) std::printf(", \"" #f "\": %d", t.f);
    OPKIT_TCUBE_ALL_FIELDS(OPKIT_P)
#undef OPKIT_P
    std::printf("}\n");
}

static int RunGrid(platform_ascendc::PlatformAscendC& pa)
{
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        std::map<std::string, std::string> kv;
        std::stringstream ss(line);
        std::string tok;
        while (ss >> tok) {
            const auto eq = tok.find('=');
            kv[tok.substr(0, eq)] = eq == std::string::npos ? "1" : tok.substr(eq + 1);
        }
        const std::string cls = kv.count("cls") ? kv["cls"] : "multi";
        std::string extra;
        AscendC::tiling::TCubeTiling t{};
        long rc = 0;
        char buf[160];
        if (cls == "multi") {
            MultiCoreMatmulTiling mm(pa);
            if (kv.count("dim")) extra += ", \"rc_dim\": " + std::to_string(mm.SetDim(std::atoi(kv["dim"].c_str())));
            Common(mm, kv, extra);
            if (kv.count("single")) {
                auto s = Ints(kv["single"]);
                mm.SetSingleShape(s[0], s[1], s[2]);
            }
            if (kv.count("align")) {
                auto a = Ints(kv["align"]);
                extra += ", \"rc_align\": " + std::to_string(mm.SetAlignSplit(a[0], a[1], a[2]));
            }
            if (kv.count("srange")) {
                auto r = Ints(kv["srange"]);
                mm.SetSingleRange(r[0], r[1], r[2], r[3], r[4], r[5]);
            }
            if (kv.count("splitk")) mm.EnableMultiCoreSplitK(true);
            optiling::TCubeTiling host;
            rc = mm.GetTiling(host);
            if (rc == 0) {
                rc = mm.GetTiling(t);  // the kernel struct: the same values
                int32_t dim = 0, md = 0, nd = 0, sm = 0, sn = 0, sk = 0;
                mm.GetCoreNum(dim, md, nd);
                mm.GetSingleShape(sm, sn, sk);
                std::snprintf(buf, sizeof buf,
                              ", \"coreDim\": %d, \"mDim\": %d, \"nDim\": %d, \"getSingle\": [%d, %d, %d], \"getBase\": [%d, %d, %d], "
                              "\"hostSame\": %d",
                              dim, md, nd, sm, sn, sk, mm.GetBaseM(), mm.GetBaseN(), mm.GetBaseK(),
                              host.get_baseK() == t.baseK && host.get_depthA1() == t.depthA1 && host.get_usedCoreNum() == t.usedCoreNum ? 1 : 0);
                extra += buf;
            }
        } else if (cls == "batch") {
            BatchMatmulTiling mm(pa);
            Common(mm, kv, extra);
            if (kv.count("batch")) {
                auto b = Ints(kv["batch"]);
                extra += ", \"rc_batch\": " + std::to_string(mm.SetBatch(b[0], b[1]));
            }
            if (kv.count("singlebatch")) {
                auto b = Ints(kv["singlebatch"]);
                extra += ", \"rc_singlebatch\": " + std::to_string(mm.SetSingleBatch(b[0], b[1]));
            }
            rc = mm.GetTiling(t);
            if (rc == 0) {
                int32_t dim = 0, md = 0, nd = 0, bcm = 0, bcn = 0;
                mm.GetCoreNum(dim, md, nd, bcm, bcn);
                std::snprintf(buf, sizeof buf, ", \"coreDim\": %d, \"batchCore\": [%d, %d]", dim, bcm, bcn);
                extra += buf;
            }
        } else if (kv.count("noplat")) {  // CANN's default constructor: 910B capacities
            MatmulApiTiling mm;
            Common(mm, kv, extra);
            rc = mm.GetTiling(t);
        } else {
            MatmulApiTiling mm(pa);
            Common(mm, kv, extra);
            rc = mm.GetTiling(t);
        }
        PrintAll(kv.count("case") ? kv["case"] : line, rc, t, extra);
        std::fflush(stdout);
    }
    return 0;
}
