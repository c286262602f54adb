"""The fake CANN's runtime as C sources, built with g++ by tests/fake_cann.py: ``libascendcl`` (ACL_C: host memory
for the device, every call recorded), ``libnnopbase`` (NNOPBASE_C: aclCreateTensor, aclCreateTensorList and the
attr arrays, keeping the dtype, shape and data), ``libhccl`` (HCCL_C: communicators of R processes that really
exchange data, through files in a folder the root info names) and the aclnn operators a package's
``libcust_opapi`` computes (FAKE_OPS_C, for the op types of FAKE_OPS). Each library writes its calls to
``FAKE_LOG`` (a -D define).
"""

ACL_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void rec(const char* fn, const char* arg) {
    FILE* f = fopen(FAKE_LOG, "a");
    if (f) { fprintf(f, "{\"tool\": \"acl\", \"argv\": [\"%s\", \"%s\"], \"cwd\": \"\"}\n", fn, arg); fclose(f); }
}
int aclInit(const char* config) { (void)config; rec("aclInit", ""); return 0; }
int aclrtSetDevice(int32_t d) {
    char b[16]; snprintf(b, sizeof b, "%d", d); rec("aclrtSetDevice", b);
    if (getenv("FAKE_CANN_NO_DEVICE")) return 107001;
    const char* bad = getenv("FAKE_CANN_BAD_DEVICE");  /* one device that fails, as a broken NPU does */
    return bad && atoi(bad) == d ? 107001 : 0;
}
int aclrtCreateStream(void** s) { *s = (void*)0x1; return 0; }
/* the device's allocations and their sizes: fake_device_bytes tells an operator how many bytes a tensor's buffer has */
static struct { void* p; size_t n; } allocs[4096];
static int n_allocs;
size_t fake_device_bytes(const void* p) {
    for (int i = 0; i < n_allocs; ++i) if (allocs[i].p == p) return allocs[i].n;
    return 0;
}
int aclrtMalloc(void** p, size_t n, int policy) {
    char b[32]; snprintf(b, sizeof b, "%zu", n); rec("aclrtMalloc", b);
    (void)policy; *p = calloc(1, n ? n : 1);
    if (n_allocs < 4096) { allocs[n_allocs].p = *p; allocs[n_allocs].n = n; ++n_allocs; }
    return 0;
}
int aclrtMemcpy(void* dst, size_t cap, const void* src, size_t n, int kind) {
    char b[32]; snprintf(b, sizeof b, "%d:%zu", kind, n); rec("aclrtMemcpy", b);
    if (n > cap) return 107000;
    memcpy(dst, src, n); return 0;
}
int aclrtFree(void* p) { free(p); return 0; }
int aclrtSynchronizeStream(void* s) { (void)s; rec("aclrtSynchronizeStream", ""); return 0; }
int aclrtDestroyStream(void* s) { (void)s; return 0; }
int aclrtResetDevice(int32_t d) { (void)d; return 0; }
int aclFinalize(void) { rec("aclFinalize", ""); return 0; }
const char* aclGetRecentErrMsg(void) { return "EE1001: fake CANN: the device is not available"; }
"""

# The fake's aclTensor and aclTensorList, as its libnnopbase makes them and its aclnn operators read them.
FAKE_TENSOR_H = r"""
#include <stdint.h>
typedef struct { int dtype; int format; uint64_t ndim; int64_t shape[8]; void* data; } FakeTensor;
typedef struct { uint64_t size; FakeTensor** items; } FakeTensorList;
"""

NNOPBASE_C = FAKE_TENSOR_H + r"""
#include <stdio.h>
#include <stdlib.h>
static void rec(const char* fn, const char* arg) {
    FILE* f = fopen(FAKE_LOG, "a");
    if (f) { fprintf(f, "{\"tool\": \"acl\", \"argv\": [\"%s\", \"%s\"], \"cwd\": \"\"}\n", fn, arg); fclose(f); }
}
void* aclCreateTensor(const int64_t* view, uint64_t n, int dtype, const int64_t* stride, int64_t offset, int fmt,
                      const int64_t* storage, uint64_t sn, void* data) {
    char b[256]; int k = snprintf(b, sizeof b, "dtype=%d format=%d shape=", dtype, fmt);
    for (uint64_t i = 0; i < n && k < 200; ++i) k += snprintf(b + k, sizeof b - k, "%lld,", (long long)view[i]);
    (void)stride; (void)offset; (void)storage; (void)sn;
    rec("aclCreateTensor", b);
    if (!data || n > 8) return NULL;
    FakeTensor* t = (FakeTensor*)calloc(1, sizeof(FakeTensor));
    t->dtype = dtype; t->format = fmt; t->ndim = n; t->data = data;
    for (uint64_t i = 0; i < n; ++i) t->shape[i] = view[i];
    return t;
}
int aclDestroyTensor(void* t) { free(t); return 0; }
void* aclCreateTensorList(FakeTensor* const* value, uint64_t size) {
    char b[32]; snprintf(b, sizeof b, "size=%llu", (unsigned long long)size); rec("aclCreateTensorList", b);
    if (!value && size) return NULL;
    FakeTensorList* l = (FakeTensorList*)calloc(1, sizeof(FakeTensorList));
    l->size = size;
    l->items = (FakeTensor**)calloc(size ? size : 1, sizeof(FakeTensor*));
    for (uint64_t i = 0; i < size; ++i) { if (!value[i]) { free(l->items); free(l); return NULL; } l->items[i] = value[i]; }
    return l;
}
int aclDestroyTensorList(void* p) {  /* as CANN's: the list and the tensors in it */
    FakeTensorList* l = (FakeTensorList*)p;
    if (!l) return 0;
    rec("aclDestroyTensorList", "");
    for (uint64_t i = 0; i < l->size; ++i) free(l->items[i]);
    free(l->items); free(l);
    return 0;
}
void* aclCreateIntArray(const int64_t* v, uint64_t n) { (void)v; (void)n; return malloc(16); }
void* aclCreateFloatArray(const float* v, uint64_t n) { (void)v; (void)n; return malloc(16); }
void* aclCreateBoolArray(const _Bool* v, uint64_t n) { (void)v; (void)n; return malloc(16); }
"""


# The fake HCCL: HcclGetRootInfo (rank 0) makes an exchange folder (mkdtemp under $TMPDIR) and puts its path in the
# root info; HcclCommInitRootInfo(R, root, rank) makes that rank's communicator, named "fake_hccl_<folder>"; the fake
# aclnn operators find it by that name (fake_hccl_comm, the op's group attr) and reduce through it
# (fake_hccl_all_reduce_sum: each rank writes its float32 data as a file, waits for every rank's, sums them in rank
# order). FAKE_HCCL_HANG_RANK=r: rank r never sends (the others wait for it, as in a hung collective).
HCCL_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define HCCL_ROOT_INFO_BYTES 4108
typedef struct { char internal[HCCL_ROOT_INFO_BYTES]; } HcclRootInfo;
typedef struct { char dir[1024]; char name[128]; uint32_t ranks, rank, seq; } FakeComm;
static FakeComm* comms[64];
static int n_comms;
static void rec(const char* fn, const char* arg) {
    FILE* f = fopen(FAKE_LOG, "a");
    if (f) { fprintf(f, "{\"tool\": \"hccl\", \"argv\": [\"%s\", \"%s\"], \"cwd\": \"\"}\n", fn, arg); fclose(f); }
}
int HcclGetRootInfo(HcclRootInfo* info) {
    if (!info) return 1;
    const char* tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fake-hccl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return 8;  /* HCCL_E_SYSCALL */
    memset(info, 0, sizeof *info);
    snprintf(info->internal, sizeof info->internal, "fake-hccl:%s", dir);
    rec("HcclGetRootInfo", dir);
    return 0;
}
int HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* info, uint32_t rank, void** comm) {
    char b[64]; snprintf(b, sizeof b, "nranks=%u rank=%u", nRanks, rank); rec("HcclCommInitRootInfo", b);
    if (!info || !comm || rank >= nRanks || strncmp(info->internal, "fake-hccl:", 10) != 0 || n_comms >= 64) return 1;
    FakeComm* c = (FakeComm*)calloc(1, sizeof(FakeComm));
    snprintf(c->dir, sizeof c->dir, "%s", info->internal + 10);
    const char* base = strrchr(c->dir, '/');
    snprintf(c->name, sizeof c->name, "fake_hccl_%s", base ? base + 1 : c->dir);
    c->ranks = nRanks; c->rank = rank;
    comms[n_comms++] = c;
    *comm = c;
    return 0;
}
int HcclGetCommName(void* comm, char* name) {
    if (!comm || !name) return 1;
    snprintf(name, 128, "%s", ((FakeComm*)comm)->name);
    rec("HcclGetCommName", name);
    return 0;
}
int HcclCommDestroy(void* comm) {
    if (!comm) return 1;
    char b[32]; snprintf(b, sizeof b, "rank=%u", ((FakeComm*)comm)->rank); rec("HcclCommDestroy", b);
    for (int i = 0; i < n_comms; ++i) if (comms[i] == comm) comms[i] = comms[--n_comms];
    free(comm);
    return 0;
}
void* fake_hccl_comm(const char* name) {
    for (int i = 0; name && i < n_comms; ++i) if (strcmp(comms[i]->name, name) == 0) return comms[i];
    return NULL;
}
int fake_hccl_rank(void* comm, uint32_t* ranks) { *ranks = ((FakeComm*)comm)->ranks; return (int)((FakeComm*)comm)->rank; }
/* data[0..n) of every rank summed in rank order, into data: each call is one collective of the communicator. */
int fake_hccl_all_reduce_sum(void* comm, float* data, uint64_t n) {
    FakeComm* c = (FakeComm*)comm;
    const char* hang = getenv("FAKE_HCCL_HANG_RANK");
    if (hang && (uint32_t)atoi(hang) == c->rank) for (;;) sleep(1);
    char path[1200], part[1220];
    uint32_t seq = c->seq++;
    snprintf(path, sizeof path, "%s/s%u_r%u.bin", c->dir, seq, c->rank);
    snprintf(part, sizeof part, "%s.part", path);
    FILE* f = fopen(part, "wb");
    if (!f || fwrite(data, sizeof(float), n, f) != n) return 8;
    fclose(f);
    if (rename(part, path) != 0) return 8;
    float* sum = (float*)calloc(n ? n : 1, sizeof(float));
    float* buf = (float*)malloc((n ? n : 1) * sizeof(float));
    for (uint32_t r = 0; r < c->ranks; ++r) {
        snprintf(path, sizeof path, "%s/s%u_r%u.bin", c->dir, seq, r);
        FILE* g;
        while (!(g = fopen(path, "rb"))) usleep(2000);  /* the collective waits for every rank */
        size_t got = fread(buf, sizeof(float), n, g);
        fclose(g);
        if (got != n) { free(sum); free(buf); return 4; }
        for (uint64_t i = 0; i < n; ++i) sum[i] += buf[i];
    }
    memcpy(data, sum, n * sizeof(float));
    free(sum); free(buf);
    char b[64]; snprintf(b, sizeof b, "rank=%u count=%llu", c->rank, (unsigned long long)n); rec("AllReduce", b);
    return 0;
}
"""


# The aclnn operators the fake's libcust_opapi computes (on the host: the fake device memory is host memory), for
# the packages the tests build: each reads the FakeTensor data it is given, in the dtype the tensor records (0
# float32, 1 float16, 27 bfloat16; 29 ACL_INT4: the view shape's values, two per byte, element 2i in the low nibble),
# computes in float32 and rounds once, as the kernels do. Phase 1 checks the
# arguments and keeps them in the executor; phase 2 computes. FAKE_CANN_WRONG_RESULT=1 makes each one wrong
# (1.0 added to every element), as a kernel with a bug would be. Each call is recorded.
FAKE_OPS = ("AxpyRelu", "ListSum", "ListScale", "GroupedGemm", "Int4Scale", "MatmulAllReduce")
FAKE_OPS_C = FAKE_TENSOR_H + r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
static void rec(const char* fn, const char* arg) {
    FILE* f = fopen(FAKE_LOG, "a");
    if (f) { fprintf(f, "{\"tool\": \"aclnn\", \"argv\": [\"%s\", \"%s\"], \"cwd\": \"\"}\n", fn, arg); fclose(f); }
}
static float h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
    float f;
    if (e == 0x1f) x = sign | 0x7f800000u | (m << 13);
    else if (e == 0) { f = (float)m * 5.9604644775390625e-8f; return sign ? -f : f; }
    else x = sign | ((e + 112) << 23) | (m << 13);
    memcpy(&f, &x, 4);
    return f;
}
static uint16_t f2h(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, m = x & 0x7fffff;
    int32_t exp = (int32_t)((x >> 23) & 0xff), e = exp - 112;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        m |= 0x800000;
        int shift = 14 - e;
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) ++h;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
    return (uint16_t)(sign | h);
}
static float b2f(uint16_t b) { uint32_t x = (uint32_t)b << 16; float f; memcpy(&f, &x, 4); return f; }
static uint16_t f2b(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
static int known(int dt) { return dt == 0 || dt == 1 || dt == 27; }
static uint64_t numel(const FakeTensor* t) {
    uint64_t n = 1;
    for (uint64_t i = 0; i < t->ndim; ++i) n *= (uint64_t)t->shape[i];
    return n;
}
static float ld(const FakeTensor* t, uint64_t i) {
    if (t->dtype == 1) return h2f(((const uint16_t*)t->data)[i]);
    if (t->dtype == 27) return b2f(((const uint16_t*)t->data)[i]);
    return ((const float*)t->data)[i];
}
static void st(FakeTensor* t, uint64_t i, float v) {
    if (getenv("FAKE_CANN_WRONG_RESULT")) v += 1.0f;
    if (t->dtype == 1) ((uint16_t*)t->data)[i] = f2h(v);
    else if (t->dtype == 27) ((uint16_t*)t->data)[i] = f2b(v);
    else ((float*)t->data)[i] = v;
}
static int same(const FakeTensor* a, const FakeTensor* b) {
    return a && b && a->dtype == b->dtype && known(a->dtype) && numel(a) == numel(b);
}
typedef struct { const void* a[3]; void* out; double f; } Exec;
static int phase1(const char* op, const void* a, const void* b, double f, void* out, uint64_t* ws, void** ex) {
    char buf[64]; snprintf(buf, sizeof buf, "attr=%g", f); rec(op, buf);
    if (!ws || !ex) return ACLNN_ERR_PARAM_NULLPTR;
    Exec* e = (Exec*)calloc(1, sizeof(Exec));
    e->a[0] = a; e->a[1] = b; e->out = out; e->f = f;
    *ws = 4096;  /* a workspace, as most operators ask one */
    *ex = e;
    return 0;
}
static Exec* phase2(const char* op, void* ws, uint64_t size, void* ex) {
    char buf[32]; snprintf(buf, sizeof buf, "workspace=%llu", (unsigned long long)size); rec(op, buf);
    return (ex && ws && size >= 4096) ? (Exec*)ex : NULL;
}

#ifdef FAKE_OP_AxpyRelu
int aclnnAxpyReluGetWorkspaceSize(const FakeTensor* x, const FakeTensor* y, double alpha, FakeTensor* z,
                                  uint64_t* ws, void** ex) {
    if (!x || !y || !z) return ACLNN_ERR_PARAM_NULLPTR;
    if (!same(x, y) || !same(x, z)) return ACLNN_ERR_PARAM_INVALID;
    return phase1("aclnnAxpyReluGetWorkspaceSize", x, y, alpha, z, ws, ex);
}
int aclnnAxpyRelu(void* ws, uint64_t size, void* ex, void* stream) {
    (void)stream;
    Exec* e = phase2("aclnnAxpyRelu", ws, size, ex);
    if (!e) return ACLNN_ERR_PARAM_INVALID;
    const FakeTensor *x = (const FakeTensor*)e->a[0], *y = (const FakeTensor*)e->a[1];
    FakeTensor* z = (FakeTensor*)e->out;
    float alpha = (float)e->f;
    for (uint64_t i = 0, n = numel(z); i < n; ++i) {
        float v = ld(x, i) + alpha * ld(y, i);
        st(z, i, v > 0.0f || v != v ? v : 0.0f);
    }
    free(e);
    return 0;
}
#endif

#ifdef FAKE_OP_ListSum
int aclnnListSumGetWorkspaceSize(const FakeTensorList* xs, double scale, FakeTensor* y, uint64_t* ws, void** ex) {
    if (!xs || !y) return ACLNN_ERR_PARAM_NULLPTR;
    for (uint64_t k = 0; k < xs->size; ++k)
        if (!same(xs->items[k], y)) return ACLNN_ERR_PARAM_INVALID;
    return phase1("aclnnListSumGetWorkspaceSize", xs, NULL, scale, y, ws, ex);
}
int aclnnListSum(void* ws, uint64_t size, void* ex, void* stream) {
    (void)stream;
    Exec* e = phase2("aclnnListSum", ws, size, ex);
    if (!e) return ACLNN_ERR_PARAM_INVALID;
    const FakeTensorList* xs = (const FakeTensorList*)e->a[0];
    FakeTensor* y = (FakeTensor*)e->out;
    for (uint64_t i = 0, n = numel(y); i < n; ++i) {
        float acc = 0.0f;
        for (uint64_t k = 0; k < xs->size; ++k) acc += ld(xs->items[k], i);
        st(y, i, (float)e->f * acc);
    }
    free(e);
    return 0;
}
#endif

#ifdef FAKE_OP_GroupedGemm
/* ops/gmm/grouped_gemm: y[i] = x[i] @ weight[i] (weight[i] as [N, K] with transpose_weight) + bias[i] */
int aclnnGroupedGemmGetWorkspaceSize(const FakeTensorList* x, const FakeTensorList* w, const FakeTensorList* bias,
                                     _Bool transpose, FakeTensorList* y, uint64_t* ws, void** ex) {
    if (!x || !w || !bias || !y) return ACLNN_ERR_PARAM_NULLPTR;
    if (w->size != x->size || y->size != x->size || (bias->size && bias->size != x->size)) return ACLNN_ERR_PARAM_INVALID;
    for (uint64_t g = 0; g < x->size; ++g) {
        const FakeTensor *a = x->items[g], *b = w->items[g], *c = y->items[g];
        int64_t k = b->shape[transpose ? 1 : 0], n = b->shape[transpose ? 0 : 1];
        if (a->ndim != 2 || b->ndim != 2 || c->ndim != 2 || a->shape[1] != k || c->shape[0] != a->shape[0] ||
            c->shape[1] != n || !known(a->dtype) || a->dtype != b->dtype || a->dtype != c->dtype)
            return ACLNN_ERR_PARAM_INVALID;
        if (bias->size && (bias->items[g]->dtype != 0 || numel(bias->items[g]) != (uint64_t)n))
            return ACLNN_ERR_PARAM_INVALID;
    }
    int r = phase1("aclnnGroupedGemmGetWorkspaceSize", x, w, transpose ? 1.0 : 0.0, y, ws, ex);
    if (r == 0) ((Exec*)*ex)->a[2] = bias;
    return r;
}
int aclnnGroupedGemm(void* ws, uint64_t size, void* ex, void* stream) {
    (void)stream;
    Exec* e = phase2("aclnnGroupedGemm", ws, size, ex);
    if (!e) return ACLNN_ERR_PARAM_INVALID;
    const FakeTensorList *x = (const FakeTensorList*)e->a[0], *w = (const FakeTensorList*)e->a[1];
    const FakeTensorList* bias = (const FakeTensorList*)e->a[2];
    FakeTensorList* y = (FakeTensorList*)e->out;
    int transpose = e->f != 0.0;
    for (uint64_t g = 0; g < x->size; ++g) {
        const FakeTensor *a = x->items[g], *b = w->items[g];
        int64_t m = a->shape[0], k = a->shape[1], n = y->items[g]->shape[1];
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                float acc = bias->size ? ld(bias->items[g], (uint64_t)j) : 0.0f;
                for (int64_t q = 0; q < k; ++q)
                    acc += ld(a, (uint64_t)(i * k + q)) * ld(b, (uint64_t)(transpose ? j * k + q : q * n + j));
                st(y->items[g], (uint64_t)(i * n + j), acc);
            }
    }
    free(e);
    return 0;
}
#endif

#ifdef FAKE_OP_ListScale
int aclnnListScaleGetWorkspaceSize(const FakeTensorList* xs, double scale, FakeTensorList* ys, uint64_t* ws,
                                   void** ex) {
    if (!xs || !ys) return ACLNN_ERR_PARAM_NULLPTR;
    if (xs->size != ys->size) return ACLNN_ERR_PARAM_INVALID;
    for (uint64_t k = 0; k < xs->size; ++k)
        if (!same(xs->items[k], ys->items[k])) return ACLNN_ERR_PARAM_INVALID;
    return phase1("aclnnListScaleGetWorkspaceSize", xs, NULL, scale, ys, ws, ex);
}
int aclnnListScale(void* ws, uint64_t size, void* ex, void* stream) {
    (void)stream;
    Exec* e = phase2("aclnnListScale", ws, size, ex);
    if (!e) return ACLNN_ERR_PARAM_INVALID;
    const FakeTensorList* xs = (const FakeTensorList*)e->a[0];
    FakeTensorList* ys = (FakeTensorList*)e->out;
    for (uint64_t k = 0; k < xs->size; ++k)
        for (uint64_t i = 0, n = numel(ys->items[k]); i < n; ++i)
            st(ys->items[k], i, (float)e->f * ld(xs->items[k], i));
    free(e);
    return 0;
}
#endif

#ifdef FAKE_OP_Int4Scale
/* tests/fixtures/api/int4_scale: y = half(w * half(scale)), r = y rounded half to even into int4 (saturated).
 * w and r are ACL_INT4 (29) tensors of the view shape; their buffers must hold the packed bytes, (n + 1) / 2. */
extern size_t fake_device_bytes(const void* p) __attribute__((weak));
static int int4_tensor(const FakeTensor* t) {
    return t && t->dtype == 29 && (!fake_device_bytes || fake_device_bytes(t->data) == (numel(t) + 1) / 2);
}
static int nibble(const FakeTensor* t, uint64_t i) {
    int v = (((const uint8_t*)t->data)[i / 2] >> (4 * (i & 1))) & 0xF;
    return v >= 8 ? v - 16 : v;
}
static void set_nibble(FakeTensor* t, uint64_t i, int v) {
    uint8_t* b = (uint8_t*)t->data + i / 2;
    int shift = 4 * (int)(i & 1);
    *b = (uint8_t)((*b & ~(0xF << shift)) | ((v & 0xF) << shift));
}
static int round_even(float v) {
    int f = (int)v;
    if ((float)f > v) f -= 1;
    float d = v - (float)f;
    if (d > 0.5f || (d == 0.5f && (f & 1))) ++f;
    return f;
}
int aclnnInt4ScaleGetWorkspaceSize(const FakeTensor* w, double scale, FakeTensor* y, FakeTensor* r, uint64_t* ws,
                                   void** ex) {
    if (!w || !y || !r) return ACLNN_ERR_PARAM_NULLPTR;
    if (!int4_tensor(w) || !int4_tensor(r) || y->dtype != 1 || numel(y) != numel(w) || numel(r) != numel(w))
        return ACLNN_ERR_PARAM_INVALID;
    int rc = phase1("aclnnInt4ScaleGetWorkspaceSize", w, NULL, scale, y, ws, ex);
    if (rc == 0) ((Exec*)*ex)->a[2] = r;
    return rc;
}
int aclnnInt4Scale(void* ws, uint64_t size, void* ex, void* stream) {
    (void)stream;
    Exec* e = phase2("aclnnInt4Scale", ws, size, ex);
    if (!e) return ACLNN_ERR_PARAM_INVALID;
    const FakeTensor* w = (const FakeTensor*)e->a[0];
    FakeTensor* y = (FakeTensor*)e->out;
    FakeTensor* r = (FakeTensor*)e->a[2];
    float s = h2f(f2h((float)e->f));
    for (uint64_t i = 0, n = numel(w); i < n; ++i) {
        st(y, i, h2f(f2h((float)nibble(w, i) * s)));
        int q = round_even(h2f(((const uint16_t*)y->data)[i]));
        set_nibble(r, i, q < -8 ? -8 : q > 7 ? 7 : q);
    }
    free(e);
    return 0;
}
#endif

#ifdef FAKE_OP_MatmulAllReduce
/* ops/mc2/matmul_all_reduce: y = sum over the group's ranks of x1 @ x2 (x2 as [N, K] with is_trans_b) + bias + x3,
 * through the fake HCCL communicator the group attr names (HcclGetCommName): phase 1 refuses a group this process
 * has no communicator of; phase 2 computes this rank's part in float32 and all-reduces it. */
extern void* fake_hccl_comm(const char* name) __attribute__((weak));
extern int fake_hccl_all_reduce_sum(void* comm, float* data, uint64_t n) __attribute__((weak));
typedef struct { const FakeTensor *x1, *x2, *bias, *x3; FakeTensor* y; void* comm; int trans_b; } MarExec;
int aclnnMatmulAllReduceGetWorkspaceSize(const FakeTensor* x1, const FakeTensor* x2, const FakeTensor* bias,
                                         const FakeTensor* x3, const char* group, const char* reduce_op,
                                         _Bool trans_a, _Bool trans_b, int64_t comm_turn, FakeTensor* y,
                                         uint64_t* ws, void** ex) {
    char buf[200]; snprintf(buf, sizeof buf, "group=%s", group ? group : "(null)");
    rec("aclnnMatmulAllReduceGetWorkspaceSize", buf);
    if (!x1 || !x2 || !y || !ws || !ex || !group) return ACLNN_ERR_PARAM_NULLPTR;
    void* comm = fake_hccl_comm ? fake_hccl_comm(group) : NULL;
    if (!comm || trans_a || comm_turn != 0 || (reduce_op && strcmp(reduce_op, "sum") != 0)) return ACLNN_ERR_PARAM_INVALID;
    if (x1->ndim != 2 || x2->ndim != 2 || y->ndim != 2 || !known(x1->dtype) || x1->dtype != x2->dtype ||
        x1->dtype != y->dtype)
        return ACLNN_ERR_PARAM_INVALID;
    int64_t k = x1->shape[1], n = y->shape[1];
    if (x2->shape[trans_b ? 1 : 0] != k || x2->shape[trans_b ? 0 : 1] != n || y->shape[0] != x1->shape[0])
        return ACLNN_ERR_PARAM_INVALID;
    MarExec* e = (MarExec*)calloc(1, sizeof(MarExec));
    e->x1 = x1; e->x2 = x2; e->bias = bias; e->x3 = x3; e->y = y; e->comm = comm; e->trans_b = trans_b;
    *ws = 4096;
    *ex = e;
    return 0;
}
int aclnnMatmulAllReduce(void* ws, uint64_t size, void* ex, void* stream) {
    (void)stream;
    char buf[32]; snprintf(buf, sizeof buf, "workspace=%llu", (unsigned long long)size); rec("aclnnMatmulAllReduce", buf);
    MarExec* e = (MarExec*)ex;
    if (!e || !ws || size < 4096) return ACLNN_ERR_PARAM_INVALID;
    int64_t m = e->x1->shape[0], k = e->x1->shape[1], n = e->y->shape[1];
    float* acc = (float*)calloc((size_t)(m * n ? m * n : 1), sizeof(float));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            float v = e->bias ? ld(e->bias, (uint64_t)j) : 0.0f;
            for (int64_t q = 0; q < k; ++q)
                v += ld(e->x1, (uint64_t)(i * k + q)) * ld(e->x2, (uint64_t)(e->trans_b ? j * k + q : q * n + j));
            if (e->x3) v += ld(e->x3, (uint64_t)(i * n + j));
            acc[i * n + j] = v;
        }
    int rc = fake_hccl_all_reduce_sum ? fake_hccl_all_reduce_sum(e->comm, acc, (uint64_t)(m * n)) : 1;
    if (rc == 0)
        for (int64_t i = 0; i < m * n; ++i) st(e->y, (uint64_t)i, acc[i]);
    free(acc);
    free(e);
    return rc == 0 ? 0 : 561000;  /* ACLNN_ERR_INNER */
}
#endif
"""
