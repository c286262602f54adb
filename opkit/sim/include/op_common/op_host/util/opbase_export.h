// opkit simulator (host side): ops-base's export attribute (empty: opkit's ops-base layer is
// header-only).
#pragma once
#ifndef OPBASE_API
#define OPBASE_API
#endif
