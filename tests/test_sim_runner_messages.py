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
