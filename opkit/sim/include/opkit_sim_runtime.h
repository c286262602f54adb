// opkit simulator runtime (internal): configuration, diagnostics, GM allocation table, per-core
// state with on-chip arenas (per-byte "written" shadow, per-32-B pipe-ordering records), trace.
// Everything is header-only (C++17 inline variables); each emulated core is a thread.
#pragma once
#include "impl/opkit/sim_config.h"
#include "impl/opkit/sim_diag.h"
#include "impl/opkit/sim_gm.h"
#include "impl/opkit/sim_shadow.h"
#include "impl/opkit/sim_trace.h"
