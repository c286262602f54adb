// opkit simulator (host side): fe::PlatformInfo and fe::OptionalInfo, the plain-struct form of
// the platform description that PlatformInfoManager::GetPlatformInfoWithOutSocVersion fills
// (CANN's platform_info_def.h). opkit fills them from the run's chip (fe::PlatFormInfos): the SoC
// version strings, core counts and on-chip memory sizes; fields opkit has no data for stay 0/"".
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fe {
enum MemoryType { DDR = 0, HBM };
enum L2Type { Cache = 0, Buff };

typedef struct tag_str_info {
    std::string aic_version;
    std::string ccec_aic_version;
    std::string ccec_aiv_version;
    std::string is_support_ai_cpu_compiler;
    std::string short_soc_version;
} StrInfo;

typedef struct tag_so_c_info {
    uint32_t ai_core_cnt = 0;
    uint32_t vector_core_cnt = 0;
    uint32_t ai_cpu_cnt = 0;
    MemoryType memory_type = HBM;
    uint64_t memory_size = 0;
    L2Type l2_type = Cache;
    uint64_t l2_size = 0;
    uint32_t l2PageNum = 0;
    uint32_t task_num = 0;
} SoCInfo;

typedef struct tag_ai_core_spec {
    double cube_freq = 0;
    uint64_t cube_m_size = 0;
    uint64_t cube_n_size = 0;
    uint64_t cube_k_size = 0;
    uint64_t vec_calc_size = 0;
    uint64_t l0_a_size = 0;
    uint64_t l0_b_size = 0;
    uint64_t l0_c_size = 0;
    uint64_t l1_size = 0;
    uint64_t smask_buffer = 0;
    uint64_t ub_size = 0;
    uint64_t ubblock_size = 0;
    uint64_t ubbank_size = 0;
    uint64_t ubbank_num = 0;
    uint64_t ubburst_in_one_block = 0;
    uint64_t ubbank_group_num = 0;
    uint32_t unzip_engines = 0;
    uint32_t unzip_max_ratios = 0;
    uint32_t unzip_channels = 0;
    uint8_t unzip_is_tight = 0;
    uint8_t cube_vector_split = 0;
    uint8_t sparsity = 0;
} AiCoreSpec;

typedef struct tag_vector_core_spec {
    double vec_freq = 0;
    uint64_t vec_calc_size = 0;
    uint64_t smask_buffer = 0;
    uint64_t ub_size = 0;
    uint64_t ubblock_size = 0;
    uint64_t ubbank_size = 0;
    uint64_t ubbank_num = 0;
    uint64_t ubburst_in_one_block = 0;
    uint64_t ubbank_group_num = 0;
    uint64_t vector_reg_size = 0;
    uint64_t predicate_reg_size = 0;
    uint64_t address_reg_size = 0;
    uint64_t alignment_reg_size = 0;
} VectorCoreSpec;

typedef struct tag_platform_info {
    StrInfo str_info;
    SoCInfo soc_info;
    AiCoreSpec ai_core_spec;
    std::map<std::string, std::vector<std::string>> ai_core_intrinsic_dtype_map;
    VectorCoreSpec vector_core_spec;
    std::map<std::string, std::vector<std::string>> vector_core_intrinsic_dtype_map;
} PlatformInfo;

typedef struct tag_optional_info {
    std::string soc_version;
    std::string core_type;
    uint32_t ai_core_num = 0;
    std::string l1_fusion_flag;
} OptionalInfo;
}  // namespace fe
