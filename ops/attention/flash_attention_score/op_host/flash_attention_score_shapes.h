// FlashAttentionScore: the problem dims from the query/key/value shapes of an input_layout, shared
// by InferShape and the tiling so that both read the layouts the same way.
#ifndef FLASH_ATTENTION_SCORE_SHAPES_H
#define FLASH_ATTENTION_SCORE_SHAPES_H

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>

#include "register/op_def_registry.h"

namespace fas_host {
enum AttrIndex : size_t {
    SCALE_VALUE = 0, KEEP_PROB, PRE_TOCKENS, NEXT_TOCKENS, HEAD_NUM, INPUT_LAYOUT, INNER_PRECISE, SPARSE_MODE,
    PSE_TYPE, SEED, OFFSET, OUT_DTYPE, SOFTMAX_OUT_LAYOUT
};
enum InputIndex : size_t {
    QUERY = 0, KEY, VALUE, REAL_SHIFT, DROP_MASK, PADDING_MASK, ATTEN_MASK, PREFIX, ACTUAL_SEQ_QLEN, ACTUAL_SEQ_KVLEN,
    Q_START_IDX, KV_START_IDX, D_SCALE_Q, D_SCALE_K, D_SCALE_V, QUERY_ROPE, KEY_ROPE
};

struct Dims {
    std::string layout;  // upper-cased
    int64_t B = 0, N1 = 0, N2 = 0, S1 = 0, S2 = 0, D = 0, D2 = 0;  // TND: S1/S2 are the token counts T1/T2
    std::string error;   // empty when the shapes are valid
};

inline std::string Upper(const char* s)
{
    std::string out = s == nullptr ? "" : s;
    for (auto& c : out) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

inline std::string ShapeText(const gert::Shape& s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.GetDimNum(); ++i) {
        out += (i ? ", " : "") + std::to_string(s.GetDim(i));
    }
    return out + "]";
}

// The dims of query [.., N1*D or N1, D], key and value in `layout`, or an error naming what is wrong.
inline Dims ReadDims(const char* layoutAttr, int64_t headNum, const gert::Shape& q, const gert::Shape& k,
                     const gert::Shape& v)
{
    Dims d;
    d.layout = Upper(layoutAttr);
    const std::string& L = d.layout;
    const size_t rank = (L == "BSH" || L == "SBH" || L == "TND") ? 3 : (L == "BSND" || L == "BNSD") ? 4 : 0;
    if (rank == 0) {
        d.error = "input_layout '" + std::string(layoutAttr ? layoutAttr : "") +
                  "' is not supported; use BSH, SBH, BSND, BNSD or TND";
        return d;
    }
    if (q.GetDimNum() != rank || k.GetDimNum() != rank || v.GetDimNum() != rank) {
        d.error = "input_layout " + L + " takes " + std::to_string(rank) + "-D query/key/value; got query " +
                  ShapeText(q) + ", key " + ShapeText(k) + ", value " + ShapeText(v);
        return d;
    }
    if (headNum <= 0) {
        d.error = "head_num = " + std::to_string(headNum) + " must be positive";
        return d;
    }
    if (L == "BSH" || L == "SBH") {
        const size_t bAxis = L == "BSH" ? 0 : 1, sAxis = L == "BSH" ? 1 : 0;
        d.B = q.GetDim(bAxis);
        d.S1 = q.GetDim(sAxis);
        d.S2 = k.GetDim(sAxis);
        d.N1 = headNum;
        if (q.GetDim(2) % headNum != 0 || q.GetDim(2) == 0) {
            d.error = "query H = " + std::to_string(q.GetDim(2)) + " is not a positive multiple of head_num = " +
                      std::to_string(headNum);
            return d;
        }
        d.D = q.GetDim(2) / headNum;
        if (k.GetDim(2) % d.D != 0 || k.GetDim(2) == 0) {
            d.error = "key H = " + std::to_string(k.GetDim(2)) + " is not a positive multiple of D = " +
                      std::to_string(d.D) + " (query H / head_num)";
            return d;
        }
        d.N2 = k.GetDim(2) / d.D;
        if (v.GetDim(2) % d.N2 != 0) {
            d.error = "value H = " + std::to_string(v.GetDim(2)) + " is not a multiple of N2 = " + std::to_string(d.N2);
            return d;
        }
        d.D2 = v.GetDim(2) / d.N2;
        if (k.GetDim(bAxis) != d.B || v.GetDim(bAxis) != d.B || v.GetDim(sAxis) != d.S2) {
            d.error = "query " + ShapeText(q) + ", key " + ShapeText(k) + " and value " + ShapeText(v) +
                      " disagree on B or S2";
        }
        return d;
    }
    if (L == "TND") {
        d.B = 1;
        d.S1 = q.GetDim(0);
        d.S2 = k.GetDim(0);
        d.N1 = q.GetDim(1);
        d.N2 = k.GetDim(1);
        d.D = q.GetDim(2);
        d.D2 = v.GetDim(2);
        if (v.GetDim(0) != d.S2 || v.GetDim(1) != d.N2 || k.GetDim(2) != d.D) {
            d.error = "key " + ShapeText(k) + " and value " + ShapeText(v) + " disagree on T2, N2 or D";
        }
    } else {
        const bool bnsd = L == "BNSD";
        d.B = q.GetDim(0);
        d.N1 = q.GetDim(bnsd ? 1 : 2);
        d.S1 = q.GetDim(bnsd ? 2 : 1);
        d.N2 = k.GetDim(bnsd ? 1 : 2);
        d.S2 = k.GetDim(bnsd ? 2 : 1);
        d.D = q.GetDim(3);
        d.D2 = v.GetDim(3);
        if (k.GetDim(0) != d.B || v.GetDim(0) != d.B || k.GetDim(3) != d.D || v.GetDim(bnsd ? 1 : 2) != d.N2 ||
            v.GetDim(bnsd ? 2 : 1) != d.S2) {
            d.error = "query " + ShapeText(q) + ", key " + ShapeText(k) + " and value " + ShapeText(v) +
                      " disagree on B, N2, S2 or D";
        }
    }
    if (d.error.empty() && d.N1 != headNum) {
        d.error = "head_num = " + std::to_string(headNum) + " but the query has N1 = " + std::to_string(d.N1) + " heads";
    }
    return d;
}
}  // namespace fas_host

#endif  // FLASH_ATTENTION_SCORE_SHAPES_H
