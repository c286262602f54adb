"""`opkit doctor` from the command line: plain report, non-zero exit when the sim backend cannot build."""

import os
import subprocess
import sys


def run_doctor(env):
    return subprocess.run([sys.executable, "-m", "opkit", "doctor"], capture_output=True, text=True, env=env)


def test_doctor_reports_and_exits_zero_with_a_compiler():
    r = run_doctor(dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "C++17 compiler" in r.stdout and "sim backend: ready" in r.stdout
    assert "cann backend, builds: " in r.stdout and "cann-cpu backend: " in r.stdout


def test_doctor_exits_non_zero_without_a_compiler(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("CXX", "CC")}
    env["PATH"] = str(tmp_path)  # no compiler, no cmake, no CANN
    r = run_doctor(env)
    assert r.returncode == 1
    assert "C++17 compiler" in r.stdout and "Traceback" not in r.stderr
