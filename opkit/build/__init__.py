"""Build backends: `sim` (g++ against opkit's simulator, the default) and, later, `cann`."""
