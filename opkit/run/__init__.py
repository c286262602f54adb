"""Running kernels: the simulator runner (harness processes) and, later, the NPU runner."""
