// Shared prelude of the vector-style test harnesses (vec_harness.cpp, names_harness.cpp,
// adv_softmax_harness.cpp): key=value parameters, input files, the four UB buffers and their staging,
// rounding and compare modes from the parameters, writing the result.
#pragma once
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

static std::map<std::string, std::string> P;
static std::string DIR;
static long pi(const char* k, long d = 0) { auto it = P.find(k); return it == P.end() ? d : std::stol(it->second); }
static uint64_t pu(const char* k, uint64_t d = 0) { auto it = P.find(k); return it == P.end() ? d : std::stoull(it->second); }
static double pf(const char* k, double d = 0) { auto it = P.find(k); return it == P.end() ? d : std::stod(it->second); }
static std::string ps(const char* k, const char* d = "") { auto it = P.find(k); return it == P.end() ? d : it->second; }

static std::vector<uint8_t> readf(const std::string& n) {
    std::ifstream f(DIR + "/" + n, std::ios::binary);
    if (!f) return {};
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}
static uint64_t pad32(uint64_t n) { return (n + 31) / 32 * 32; }
static uint64_t g_rsvd = 0;

struct Bufs {
    TBuf<TPosition::VECCALC> b[4];
    LocalTensor<uint8_t> t[4];
    uint64_t len[4] = {0, 0, 0, 0};
};

template <class T> LocalTensor<T> L(Bufs& B, int i) { return B.t[i].ReinterpretCast<T>(); }

RoundMode rmode() {
    std::string m = ps("rm", "none");
    if (m == "rint") return RoundMode::CAST_RINT;
    if (m == "floor") return RoundMode::CAST_FLOOR;
    if (m == "ceil") return RoundMode::CAST_CEIL;
    if (m == "round") return RoundMode::CAST_ROUND;
    if (m == "trunc") return RoundMode::CAST_TRUNC;
    if (m == "odd") return RoundMode::CAST_ODD;
    return RoundMode::CAST_NONE;
}
CMPMODE cmode() {
    std::string m = ps("cmp", "lt");
    if (m == "gt") return CMPMODE::GT;
    if (m == "eq") return CMPMODE::EQ;
    if (m == "le") return CMPMODE::LE;
    if (m == "ge") return CMPMODE::GE;
    if (m == "ne") return CMPMODE::NE;
    return CMPMODE::LT;
}

template <class T> T scalar_of() { return static_cast<T>(pf("s", 0)); }

// DIR, the op and the key=value parameters from the command line (DIR OP key=value...); false on a bad call.
static bool parse_args(int argc, char** argv) {
    if (argc < 3) return false;
    DIR = argv[1];
    P["op"] = argv[2];
    for (int i = 3; i < argc; ++i) {
        std::string a = argv[i];
        auto e = a.find('=');
        P[a.substr(0, e)] = a.substr(e + 1);
    }
    return true;
}

// in0.bin, in1.bin, in2.bin and dst.bin of DIR as GM buffers (32-B padded, zero-filled; nullptr when a
// file is absent); returns their padded lengths, in GM too.
static uint64_t* load_inputs(uint8_t* (&g)[4]) {
    const char* names[4] = {"in0.bin", "in1.bin", "in2.bin", "dst.bin"};
    uint64_t* lens = static_cast<uint64_t*>(AscendC::GmAlloc(4 * sizeof(uint64_t)));
    for (int i = 0; i < 4; ++i) {
        std::vector<uint8_t> d = readf(names[i]);
        lens[i] = pad32(d.size());
        if (d.empty()) continue;
        g[i] = static_cast<uint8_t*>(AscendC::GmAlloc(lens[i]));
        std::memset(g[i], 0, lens[i]);
        std::memcpy(g[i], d.data(), d.size());
    }
    return lens;
}

// Kernel side: the four GM operands (in0..in2, dst; lengths in `tiling`) each copied into a UB buffer of its own.
static void stage_operands(TPipe& pipe, Bufs& B, GM_ADDR g0, GM_ADDR g1, GM_ADDR g2, GM_ADDR gd, GM_ADDR tiling) {
    GM_ADDR g[4] = {g0, g1, g2, gd};
    for (int i = 0; i < 4; ++i) {
        B.len[i] = reinterpret_cast<uint64_t*>(tiling)[i];
        if (!B.len[i]) continue;
        pipe.InitBuffer(B.b[i], B.len[i]);
        B.t[i] = B.b[i].Get<uint8_t>();
        GlobalTensor<uint8_t> gt;
        gt.SetGlobalBuffer(g[i], B.len[i]);
        DataCopy(B.t[i], gt, uint32_t(B.len[i]));
    }
    // An op that loads into a staged buffer again (DataCopyPad into dst) writes bytes these copies wrote: transfers
    // of one pipe may land out of order, so the staging ends with the barrier the DataCopy pages ask for.
    PipeBarrier<PIPE_MTE2>();
}

// Kernel side: the destination buffer back to GM (after the caller's V -> MTE3 synchronisation).
static void write_back(Bufs& B, GM_ADDR gd) {
    GlobalTensor<uint8_t> go;
    go.SetGlobalBuffer(gd, B.len[3]);
    DataCopy(go, B.t[3], uint32_t(B.len[3]));
}

// Host side, after the launch: DIR/out.bin (the destination, as long as dst.bin) and the reserved-UB figure.
static int write_result(const uint8_t* gd) {
    std::vector<uint8_t> dd = readf("dst.bin");
    std::ofstream f(DIR + "/out.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(gd), dd.size());
    std::printf("rsvd=%llu\n", (unsigned long long)g_rsvd);
    return 0;
}

// A whole harness run: DIR and the parameters from the command line, the input files as GM, `kernel`
// (in0, in1, in2, dst, workspace, lengths) on one block, then the result files.
template <class Kernel>
static int run_harness(int argc, char** argv, const char* name, Kernel kernel) {
    if (!parse_args(argc, argv)) return 2;
    uint8_t* g[4] = {nullptr, nullptr, nullptr, nullptr};
    uint64_t* lens = load_inputs(g);
    uint8_t* ws = static_cast<uint8_t*>(AscendC::GmAlloc(32));
    ::opkit::sim::icpu_run(name, kernel, 1, g[0], g[1], g[2], g[3], ws, lens);
    return write_result(g[3]);
}
