// opkit simulator: the Matmul API's configuration surface (CANN's adv_api/matmul/matmul_config.h and
// tiling.h): the format/layout/batch/iterate enums, MatmulConfig with its fields in CANN's order and with
// CANN's member defaults (so positional and designated aggregate initialisation mean what they mean on
// CANN), the parameter structs of GetMMConfig, the Get*Config helpers and the CFG_* constants.
// Global namespace, as CANN declares them.
#pragma once
#include <cstdint>
#include <type_traits>

constexpr uint32_t SHARED_CO1_BUFFER_SIZE = 64 * 1024;

enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
enum class BatchMode { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum BatchOutMode { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };
#ifndef ASCC_STRUCT_ITERATEORDER
#define ASCC_STRUCT_ITERATEORDER
enum class IterateOrder { ORDER_M = 0, ORDER_N, UNDEF };
#endif
enum class ScheduleType { INNER_PRODUCT = 0, OUTER_PRODUCT };
// Bit flags: which of the Iterate interfaces a kernel calls (DEFAULT: all of them).
enum IterateMode : uint8_t {
    ITERATE_MODE_NORMAL = 0b00000001,
    ITERATE_MODE_ALL = 0b00000010,
    ITERATE_MODE_BATCH = 0b00000100,
    ITERATE_MODE_N_BATCH = 0b00001000,
    ITERATE_MODE_DEFAULT = 0b11111111,
};
enum class DecompressionMode {
    DECOMP_NONE = 0b0000,
    DECOMP_2bitTo8bit = 0b0001,
    DECOMP_3bitTo8bit = 0b0010,
    DECOMP_4bitTo8bit = 0b0011,
    DECOMP_16bitTo64bit = 0b0100,
    DECOMP_1bitTo8bit = 0b0101,
    DECOMP_1bitTo4bit = 0b0110,
    DECOMP_2bitTo4bit = 0b0111,
    DECOMP_3bitTo4bit = 0b1000,
};

// Field order, types and member defaults are CANN's: a field without a default is zero in
// `MatmulConfig{}` and in a shorter brace list, as on the NPU compiler.
struct MatmulConfig {
    bool doNorm;
    bool doBasicBlock;
    bool doMultiDataLoad;
    uint32_t basicM;
    uint32_t basicN;
    uint32_t basicK;
    bool intrinsicsCheck;
    bool isNBatch;
    bool enVecND2NZ;
    bool doSpecialBasicBlock;
    uint32_t doMTE2Preload;
    uint32_t singleCoreM;
    uint32_t singleCoreN;
    uint32_t singleCoreK;
    uint32_t stepM;
    uint32_t stepN;
    uint32_t baseMN;
    uint32_t singleCoreMN;
    bool enUnitFlag = true;
    bool isPerTensor;
    bool hasAntiQuantOffset;
    bool doIBShareNorm;
    bool doSpecialMDL;
    bool enableInit = true;
    BatchMode batchMode;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = IterateMode::ITERATE_MODE_DEFAULT;
    bool enableReuse = true;
    bool enableUBReuse;
    bool enableL1CacheUB;
    bool intraBlockPartSum = false;
    IterateOrder iterateOrder{IterateOrder::UNDEF};
    ScheduleType scheduleType;
    bool enableDoubleCache;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool isCO1Shared = false;
    uint32_t sharedCO1BufferSize = SHARED_CO1_BUFFER_SIZE;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
};

enum class MatmulConfigMode { CONFIG_NORM, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };

struct MatmulShapeParams {
    uint32_t singleCoreM;
    uint32_t singleCoreN;
    uint32_t singleCoreK;
    uint32_t basicM;
    uint32_t basicN;
    uint32_t basicK;
};
struct MatmulQuantParams {
    bool isPerTensor;
    bool hasAntiQuantOffset;
};
struct MatmulBatchParams {
    bool isNBatch;
    BatchMode batchMode;
    bool isBiasBatch = true;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
};
struct MatmulFuncParams {
    bool intrinsicsCheck;
    bool enVecND2NZ;
    bool enableDoubleCache;
    bool enableL1CacheUB;
    uint32_t doMTE2Preload;
    IterateOrder iterateOrder;
    ScheduleType scheduleType;
    bool enableReuse = true;
    bool enableUBReuse;
    bool isPartialOutput = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
};
struct MatmulBiasParams {
    bool enableSetBias = true;
};
struct MatrixOffset {
    int32_t offset;
    int32_t row;
    int32_t col;
    int32_t height;
    int32_t width;
};

namespace opkit_mm_cfg {
// What every template's helper shares: all fields zero except the member defaults, then
// enableUBReuse on (every CANN helper sets it).
constexpr MatmulConfig base() {
    MatmulConfig c{};
    c.enableUBReuse = true;
    return c;
}
}  // namespace opkit_mm_cfg

// The Norm template.
constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                       const bool isVecND2NZ = false, const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       const bool isMsgReuse = true, const IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       const bool enUnitFlag = true, const bool enableMixDualMaster = false,
                                       const BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH) {
    MatmulConfig c = opkit_mm_cfg::base();
    c.doNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableReuse = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    c.bmmOutMode = bmmOutMode;
    return c;
}

// The MDL (multi-data-load) template: unit flag off by default.
constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                    const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false, bool isPerTensor = false,
                                    bool hasAntiQuantOffset = false, const bool enUnitFlag = false, const bool isMsgReuse = true,
                                    const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                    const bool enableMixDualMaster = false, const bool enableKdimReorderLoad = false,
                                    const bool enableL1BankConflictOptimise = false) {
    MatmulConfig c = opkit_mm_cfg::base();
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    c.batchMode = BatchMode::NONE;
    c.enableReuse = isMsgReuse;
    c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB;
    c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    c.enableL1BankConflictOptimise = enableL1BankConflictOptimise;
    return c;
}

// The SpecialMDL template (MDL with stepN == 2).
constexpr MatmulConfig GetSpecialMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                           const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                           bool isPerTensor = false, bool hasAntiQuantOffset = false) {
    MatmulConfig c = opkit_mm_cfg::base();
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = false;
    c.doSpecialMDL = true;
    c.batchMode = BatchMode::NONE;
    return c;
}

// The BasicBlock template: fixed baseM/baseN/baseK.
constexpr MatmulConfig GetBasicConfig(const uint32_t basicM, const uint32_t basicN, const uint32_t basicK,
                                      const bool intrinsicsLimit = false, const bool batchLoop = false,
                                      const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1) {
    MatmulConfig c = opkit_mm_cfg::base();
    c.doBasicBlock = true;
    c.basicM = basicM;
    c.basicN = basicN;
    c.basicK = basicK;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enUnitFlag = false;
    c.batchMode = bmmMode;
    return c;
}

// The IBShare template (A or B shared by the two vector cores of a group).
constexpr MatmulConfig GetIBShareNormConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                            const bool isVecND2NZ = false,
                                            const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                            const bool isDoubleCache = false, const bool enUnitFlag = true) {
    MatmulConfig c = opkit_mm_cfg::base();
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.enUnitFlag = enUnitFlag;
    c.doIBShareNorm = true;
    c.batchMode = bmmMode;
    c.enableDoubleCache = isDoubleCache;
    return c;
}

constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();
constexpr MatmulConfig MM_CFG_BB = GetBasicConfig(128, 128, 128);
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();

namespace opkit_mm_cfg {
template <class P>
constexpr void apply(MatmulConfig& c, const P& p) {
    if constexpr (std::is_same<P, MatmulShapeParams>::value) {
        c.singleCoreM = p.singleCoreM; c.singleCoreN = p.singleCoreN; c.singleCoreK = p.singleCoreK;
        c.basicM = p.basicM; c.basicN = p.basicN; c.basicK = p.basicK;
    } else if constexpr (std::is_same<P, MatmulQuantParams>::value) {
        c.isPerTensor = p.isPerTensor; c.hasAntiQuantOffset = p.hasAntiQuantOffset;
    } else if constexpr (std::is_same<P, MatmulBatchParams>::value) {
        c.isNBatch = p.isNBatch; c.batchMode = p.batchMode; c.isBiasBatch = p.isBiasBatch; c.bmmOutMode = p.bmmOutMode;
    } else if constexpr (std::is_same<P, MatmulFuncParams>::value) {
        c.intrinsicsCheck = p.intrinsicsCheck; c.enVecND2NZ = p.enVecND2NZ; c.enableDoubleCache = p.enableDoubleCache;
        c.enableL1CacheUB = p.enableL1CacheUB; c.doMTE2Preload = p.doMTE2Preload; c.iterateOrder = p.iterateOrder;
        c.scheduleType = p.scheduleType; c.enableReuse = p.enableReuse; c.enableUBReuse = p.enableUBReuse;
        c.isPartialOutput = p.isPartialOutput; c.isA2B2Shared = p.isA2B2Shared; c.isEnableChannelSplit = p.isEnableChannelSplit;
        c.enableKdimReorderLoad = p.enableKdimReorderLoad; c.enableL1BankConflictOptimise = p.enableL1BankConflictOptimise;
        c.enableRelu = p.enableRelu; c.decompMode = p.decompMode;
    } else if constexpr (std::is_same<P, MatmulBiasParams>::value) {
        c.enableSetBias = p.enableSetBias;
    } else {
        static_assert(std::is_same<P, MatmulShapeParams>::value,
                      "GetMMConfig: each argument must be a MatmulShapeParams, MatmulQuantParams, MatmulBatchParams, "
                      "MatmulFuncParams or MatmulBiasParams");
    }
}
}  // namespace opkit_mm_cfg

// A template's defaults (configMode) changed by any of the parameter structs, in any order.
template <MatmulConfigMode configMode, typename... ArgTypes>
constexpr MatmulConfig GetMMConfig(ArgTypes&&... args) {
    MatmulConfig c = CFG_NORM;
    if constexpr (configMode == MatmulConfigMode::CONFIG_MDL) c = CFG_MDL;
    else if constexpr (configMode == MatmulConfigMode::CONFIG_SPECIALMDL) c = GetSpecialMDLConfig();
    else if constexpr (configMode == MatmulConfigMode::CONFIG_IBSHARE) c = CFG_IBSHARE_NORM;
    (opkit_mm_cfg::apply(c, typename std::decay<ArgTypes>::type(args)), ...);
    return c;
}
