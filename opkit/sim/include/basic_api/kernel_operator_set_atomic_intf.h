// opkit simulator: GM atomics of the data-copy engine: SetAtomicAdd/Max/Min/Type/None.
#pragma once
#include "impl/opkit/copy_engine.h"

namespace AscendC {

template <class T> inline void SetAtomicAdd() { auto& c = opkit::sim::core(); c.atomic_mode = 1; c.atomic_dtype = opkit::sim::atomic_tag<T>::v; }
template <class T> inline void SetAtomicMax() { auto& c = opkit::sim::core(); c.atomic_mode = 2; c.atomic_dtype = opkit::sim::atomic_tag<T>::v; }
template <class T> inline void SetAtomicMin() { auto& c = opkit::sim::core(); c.atomic_mode = 3; c.atomic_dtype = opkit::sim::atomic_tag<T>::v; }
template <class T> inline void SetAtomicType() { opkit::sim::core().atomic_dtype = opkit::sim::atomic_tag<T>::v; }
inline void SetAtomicNone() { opkit::sim::core().atomic_mode = 0; }
inline void DisableDmaAtomic() { SetAtomicNone(); }

}  // namespace AscendC
