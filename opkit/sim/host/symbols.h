// opkit simulator harness: names of the op's registered functions for diagnostics, read from
// the executable's own ELF symbol table (static functions included), demangled. Returns an empty
// string when the table is stripped or the address is unknown; callers then name the role.
#pragma once
#include <cxxabi.h>
#include <elf.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" void opkit_harness_anchor();

namespace opkit {
namespace host {

struct ElfSymbol {
    uint64_t value;
    std::string name;
};

inline const std::vector<ElfSymbol>& SelfSymbols(uint64_t* anchor_value) {
    static std::vector<ElfSymbol> syms;
    static uint64_t anchor = 0;
    static bool loaded = false;
    if (!loaded) {
        loaded = true;
        FILE* f = std::fopen("/proc/self/exe", "rb");
        if (f) {
            std::vector<unsigned char> b;
            unsigned char chunk[65536];
            size_t n;
            while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) b.insert(b.end(), chunk, chunk + n);
            std::fclose(f);
            if (b.size() >= sizeof(Elf64_Ehdr) && std::memcmp(b.data(), ELFMAG, SELFMAG) == 0 && b[EI_CLASS] == ELFCLASS64) {
                Elf64_Ehdr eh;
                std::memcpy(&eh, b.data(), sizeof eh);
                for (unsigned i = 0; i < eh.e_shnum; ++i) {
                    Elf64_Shdr sh;
                    size_t off = eh.e_shoff + size_t(i) * eh.e_shentsize;
                    if (off + sizeof sh > b.size()) break;
                    std::memcpy(&sh, b.data() + off, sizeof sh);
                    if (sh.sh_type != SHT_SYMTAB) continue;
                    Elf64_Shdr strh;
                    size_t soff = eh.e_shoff + size_t(sh.sh_link) * eh.e_shentsize;
                    if (soff + sizeof strh > b.size()) break;
                    std::memcpy(&strh, b.data() + soff, sizeof strh);
                    for (size_t k = 0; k + sizeof(Elf64_Sym) <= sh.sh_size; k += sizeof(Elf64_Sym)) {
                        Elf64_Sym s;
                        if (sh.sh_offset + k + sizeof s > b.size()) break;
                        std::memcpy(&s, b.data() + sh.sh_offset + k, sizeof s);
                        if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_value == 0) continue;
                        if (strh.sh_offset + s.st_name >= b.size()) continue;
                        const char* nm = reinterpret_cast<const char*>(b.data() + strh.sh_offset + s.st_name);
                        syms.push_back({s.st_value, nm});
                        if (std::strcmp(nm, "opkit_harness_anchor") == 0) anchor = s.st_value;
                    }
                }
            }
        }
    }
    *anchor_value = anchor;
    return syms;
}

// "optiling::TilingAxpyRelu" for the address of that function, "" when unknown.
inline std::string FunctionName(const void* fn) {
    if (fn == nullptr) return "";
    uint64_t anchor = 0;
    const auto& syms = SelfSymbols(&anchor);
    if (anchor == 0) return "";
    const uint64_t bias = reinterpret_cast<uint64_t>(reinterpret_cast<const void*>(&opkit_harness_anchor)) - anchor;
    const uint64_t want = reinterpret_cast<uint64_t>(fn) - bias;
    for (const auto& s : syms) {
        if (s.value != want) continue;
        int st = 0;
        char* d = abi::__cxa_demangle(s.name.c_str(), nullptr, nullptr, &st);
        std::string out = (st == 0 && d) ? d : s.name;
        std::free(d);
        size_t paren = out.find('(');
        if (paren != std::string::npos) out.resize(paren);
        return out;
    }
    return "";
}

}  // namespace host
}  // namespace opkit
