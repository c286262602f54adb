"""Operator names: OpType <-> file stem (msOpGen's rule) and the names opkit refuses."""

from __future__ import annotations

import re

from opkit.errors import UsageError

_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_OPTYPE_RE = re.compile(r"^[A-Z][A-Za-z0-9]*$")

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern
    false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
    operator or or_eq private protected public register reinterpret_cast requires return short signed
    sizeof static static_assert static_cast struct switch template this thread_local throw true try
    typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq""".split()
)

# Symbols of the C library, libm and POSIX that an extern "C" kernel entry of the same name would
# collide with when the kernel is linked into a host program (the simulator, CPU-debug harnesses).
C_SYMBOLS = frozenset(
    """abort abs acos acosh asin asinh atan atan2 atanh atexit atof atoi atol bsearch cbrt ceil
    clock close copysign cos cosh div erf erfc exit exp exp2 expm1 fabs fclose fdim floor fma fmax
    fmin fmod fopen fork fprintf free frexp fscanf getenv hypot ilogb index isinf isnan kill labs
    ldexp lgamma link llrint llround log log10 log1p log2 logb longjmp lrint lround main malloc
    memcmp memcpy memmove memset mmap modf nan nearbyint nextafter open pause pipe pow printf
    putchar puts qsort raise rand read realloc remainder remove rename rint round scalbn scanf
    select signal sin sinh sleep sqrt srand stat strcmp strcpy strlen strncpy system tan tanh tgamma
    time trunc unlink wait write""".split()
)

# Names the Ascend C interface itself defines in kernels (entry points would shadow them).
ASCENDC_SYMBOLS = frozenset({"half", "bfloat16_t", "workspace", "tiling", "kernel_operator"})


def snake_of(op_type: str) -> str:
    """File stem and kernel entry name of an OpType, by msOpGen's rule (``AbcAAc`` -> ``abc_a_ac``)."""
    out: list[str] = []
    for i, ch in enumerate(op_type):
        if ch.isupper() and i > 0:
            prev = op_type[i - 1]
            nxt = op_type[i + 1] if i + 1 < len(op_type) else ""
            if prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower()):
                out.append("_")
        out.append(ch.lower())
    return "".join(out)


def op_type_of(name: str) -> str:
    """The OpType derived from a snake_case op name (``axpy_relu`` -> ``AxpyRelu``)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be an operator name, or None when it can."""
    if not isinstance(name, str):
        return f"the name must be a string, not {type(name).__name__}"
    if name == "":
        return "the name is empty"
    if "/" in name or "\\" in name or name in (".", "..") or "\0" in name:
        return f"'{name}' is a path, not a name (use --dir to choose where the package goes)"
    if not _NAME_RE.match(name):
        return (
            f"'{name}' is not a snake_case name (lower-case letters, digits and single underscores, "
            "starting with a letter, e.g. 'axpy_relu')"
        )
    if len(name) > 64:
        return f"'{name}' is longer than 64 characters"
    if name in CPP_KEYWORDS:
        return f"'{name}' is a C++ keyword; the kernel entry function cannot have that name"
    if name in C_SYMBOLS:
        return (
            f"'{name}' is a C/libm/POSIX symbol; an extern \"C\" kernel entry of that name would collide "
            f"with it (try '{name}_custom')"
        )
    if name in ASCENDC_SYMBOLS:
        return f"'{name}' is a name the Ascend C interface already uses"
    derived = op_type_of(name)
    if snake_of(derived) != name:
        return (
            f"'{name}' does not survive msOpGen's naming rule: its OpType {derived} maps back to "
            f"'{snake_of(derived)}' (keep digits attached to the word before them)"
        )
    return None


def check_name(name: object) -> str:
    problem = name_problem(name)
    if problem:
        raise UsageError(f"invalid operator name: {problem}")
    assert isinstance(name, str)
    return name


def op_type_problem(op_type: object, name: str) -> str | None:
    """Why ``op_type`` cannot be the OpType of an operator called ``name``."""
    if not isinstance(op_type, str) or not _OPTYPE_RE.match(op_type):
        return f"'{op_type}' is not an UpperCamelCase OpType (e.g. 'AxpyRelu')"
    if snake_of(op_type) != name:
        return (
            f"OpType {op_type} maps to the file stem '{snake_of(op_type)}' by msOpGen's rule, "
            f"not to the op name '{name}' (use OpType {op_type_of(name)}, or rename the op "
            f"'{snake_of(op_type)}')"
        )
    return None
