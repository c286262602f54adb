// opkit simulator: CPU-debug launch header (same entry points as tikicpulib.h).
#pragma once
#include "tikicpulib.h"
