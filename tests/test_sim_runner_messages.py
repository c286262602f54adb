"""How a failed harness process becomes one clear message."""

from opkit.run.sim_runner import failure_message


def test_diagnostic_keeps_its_location():
    err = ("opkit-sim: error: kernel 'demo' AIV block 3/48: DataCopy: length 34 B is not a multiple of 32 B\n"
           "  at op_kernel/demo.h:97\nsome other noise\n")
    msg = failure_message(3, err, "demo::tiny[float16@ascend910b2]")
    assert msg == ("demo::tiny[float16@ascend910b2]: kernel 'demo' AIV block 3/48: DataCopy: length 34 B is not a "
                   "multiple of 32 B\n  at op_kernel/demo.h:97")


def test_crash_names_the_signal():
    msg = failure_message(-11, "boom\n", "x")
    assert msg == "x: the kernel process died with SIGSEGV:\nboom"


def test_other_exit_codes_show_the_tail():
    assert failure_message(2, "usage: harness ...\n", "x") == "x: the harness exited with code 2:\nusage: harness ..."


def test_warnings_are_collected_apart_from_errors():
    from opkit.run.sim_runner import WARNING_PREFIX, _diagnostics

    err = ("opkit-sim: warning: kernel 'demo' AIV block 0/8: Add: reads UB bytes that were never written\n"
           "  at op_kernel/demo.h:40\n  extra line\nnoise\n    not a continuation after noise\n"
           "opkit-sim: error: something else\n  at op_kernel/demo.h:50\n")
    assert _diagnostics(err, WARNING_PREFIX) == [
        "kernel 'demo' AIV block 0/8: Add: reads UB bytes that were never written\n  at op_kernel/demo.h:40\n"
        "  extra line"]
    assert _diagnostics(err) == ["something else\n  at op_kernel/demo.h:50"]
