"""The tutorials run as written: every ```bash block of a tutorial page is run in a fresh folder, in order,
and what it prints is compared with the ```text block that follows it, after the normalisation that
docs/tutorials/writing.md documents. Each Chinese page must hold exactly the same blocks as its English page.

The runner's own rules (block extraction, masks, wildcards, figure tolerance) are tested first, on small
inputs, so a tutorial's pass cannot come from a comparison that accepts anything."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"
# Pages of docs/tutorials/ that teach no commands (their ```bash blocks, if any, are not run).
NOT_RUN = {"index.md", "writing.md"}
FOLDER_SHOWN_AS = "~/tutorial"
CANN_SHOWN_AS = "/usr/local/Ascend/ascend-toolkit/latest"  # where CANN installs by default
REL_TOL = 0.05  # decimal figures (with a point or an exponent) agree within 5 %; integers exactly
BLOCK_TIMEOUT_S = 600

_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)[^`]*$")


@dataclass
class Block:
    lang: str
    text: str
    line: int  # where the block's first line is in the page (1-based)
    open_at: int = 0  # the opening fence's index in the page's lines
    close_at: int = 0  # the closing fence's


@dataclass
class Step:
    command: Block
    output: Block | None


def blocks(markdown: str) -> list[Block]:
    """The fenced blocks of a page, top-level or indented, in order."""
    out, lines = [], markdown.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i].strip())
        if not m:
            i += 1
            continue
        fence, lang, indent = m.group(1), m.group(2), len(lines[i]) - len(lines[i].lstrip())
        body, j = [], i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence) and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        out.append(Block(lang, "\n".join(body), i + 2, i, j))
        i = j + 1
    return out


def steps(markdown: str) -> list[Step]:
    """Each ```bash block with the ```text block right after it (only blank lines between), if any."""
    found: list[Step] = []
    lines = markdown.splitlines()
    bl = blocks(markdown)
    for k, b in enumerate(bl):
        if b.lang != "bash":
            continue
        nxt = bl[k + 1] if k + 1 < len(bl) else None
        adjacent = nxt is not None and nxt.lang == "text" and all(
            not s.strip() for s in lines[b.close_at + 1: nxt.open_at])
        found.append(Step(b, nxt if adjacent else None))
    return found


# -- normalisation ------------------------------------------------------------------------------------------

_MASKS = [
    (re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "<timestamp>"),
    (re.compile(r"\b\d{8}[-T_]\d{6}(?:[-_.]\d+)?\b"), "<timestamp>"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{8,}\b"), "<hash>"),
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|s)\b"), "<time>"),
]


def normalise(text: str, folder: Path | None = None, cache: Path | None = None,
              paths: dict[str, str] | None = None) -> list[str]:
    """What a comparison sees: paths, timestamps, hashes and wall times masked, trailing blanks dropped.
    `paths` maps more folders to what the page shows for them."""
    masks = list((paths or {}).items())
    if cache is not None:
        masks += [(str(cache.resolve()), "<cache>"), (str(cache), "<cache>")]
    if folder is not None:
        masks += [(str(folder.resolve()), FOLDER_SHOWN_AS), (str(folder), FOLDER_SHOWN_AS)]
    for path, mask in sorted(masks, key=lambda m: -len(m[0])):  # the longer path first: one may hold the other
        text = text.replace(path, mask)
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    out = [line.rstrip() for line in text.splitlines()]
    while out and not out[-1]:
        out.pop()
    return out


_TOKEN = re.compile(r"(\.\.\.|[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")
_NUM = r"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"


def line_matches(expected: str, actual: str) -> bool:
    """`...` in an expected line matches any text; figures match within REL_TOL (decimals) or exactly."""
    parts = _TOKEN.split(expected)
    pattern, figures = [], []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            pattern.append(re.escape(part))
        elif part == "...":
            pattern.append(".*?")
        else:
            pattern.append(_NUM)
            figures.append(part)
    m = re.fullmatch("".join(pattern), actual)
    if m is None:
        return False
    for want, got in zip(figures, m.groups(), strict=True):
        if not re.search(r"[.eE]", want):
            if want != got:
                return False
        elif abs(float(got) - float(want)) > REL_TOL * abs(float(want)) + 1e-12:
            return False
    return True


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; an expected line that is only `...` matches any number of lines (none included)."""
    memo: dict[tuple[int, int], bool] = {}

    def at(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if i == len(expected):
                memo[i, j] = j == len(actual)
            elif expected[i] == "...":
                memo[i, j] = at(i + 1, j) or (j < len(actual) and at(i, j + 1))
            else:
                memo[i, j] = j < len(actual) and line_matches(expected[i], actual[j]) and at(i + 1, j + 1)
        return memo[i, j]

    return at(0, 0)


# -- running ---------------------------------------------------------------------------------------------------


def _one_core() -> int:
    """The core this run's blocks are pinned to: a different one per pytest-xdist worker when there are several."""
    cores = sorted(os.sched_getaffinity(0))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    return cores[index % len(cores)]


def _cache_dir() -> Path:
    from opkit.build.cache import shared_dir

    return shared_dir()


def run_block(script: str, cwd: Path, state: Path, env: dict[str, str]) -> tuple[str, Path]:
    """Run one block with bash -e in `cwd`; returns what it printed (stdout and stderr as one stream, and
    `[exit N]` last when it ended with status N != 0) and the folder it ended in."""
    body = f'trap \'pwd > "{state}"\' EXIT\nset -e\ncd "{cwd}"\n{script}\n'
    core = _one_core()
    r = subprocess.run(["bash", "--noprofile", "--norc", "-c", body], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=BLOCK_TIMEOUT_S, stdin=subprocess.DEVNULL,
                       preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    text = r.stdout.decode("utf-8", "replace")
    if r.returncode:
        text = text.rstrip("\n") + f"\n[exit {r.returncode}]\n"
    return text, Path(state.read_text().strip())


def tutorial_env(folder: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORCE_COLOR", "CLICOLOR", "PYTEST_"))}
    env.update({
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "COLUMNS": "100", "LINES": "50", "TERM": "dumb", "NO_COLOR": "1", "LC_ALL": "C.UTF-8",
        "OPKIT_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1",
    })
    return env


def run_tutorial(page: Path, folder: Path) -> list[str]:
    """Run a page's steps in `folder`; returns one message per step whose output or exit status differs."""
    folder.mkdir(parents=True, exist_ok=True)
    cache = _cache_dir()
    env, cwd, state = tutorial_env(folder, cache), folder, folder.parent / ".tutorial-cwd"
    markdown = page.read_text(encoding="utf-8")
    paths: dict[str, str] = {}
    for name in setups(markdown):
        if name not in SETUPS:
            return [f"{page}: unknown tutorial-setup {name!r} (known: {', '.join(SETUPS)})"]
        paths.update(SETUPS[name](folder, env))
    problems = []
    for step in steps(markdown):
        printed, cwd = run_block(step.command.text, cwd, state, env)
        got = normalise(printed, folder, cache, paths)
        where = f"{page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}:{step.command.line}"
        if step.output is None:
            if got and got[-1].startswith("[exit "):
                problems.append(f"{where}: the block failed ({got[-1]}) and no output block says so:\n"
                                + "\n".join(got))
            continue
        want = normalise(step.output.text)
        if not output_matches(want, got):
            problems.append(f"{where}: output differs\n--- the page shows\n" + "\n".join(want)
                            + "\n--- the commands printed\n" + "\n".join(got))
            break  # later steps build on this one
    return problems


_SETUP = re.compile(r"<!--\s*tutorial-setup:\s*([\w-]+)\s*-->")


def setups(markdown: str) -> list[str]:
    """What a page asks the runner to provide (`<!-- tutorial-setup: fake-cann -->`)."""
    return _SETUP.findall(markdown)


def fake_cann_setup(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """`fake-cann`: the stand-in CANN toolkit of the backends' tests (tests/fake_cann.py) beside the page's
    folder, its set_env.sh applied to every block; its path is shown as CANN's default install folder."""
    sys.path.insert(0, str(Path(__file__).parent))
    from fake_cann import make_fake_cann

    fake = make_fake_cann(folder.parent / "cann")
    with_cann = fake.env(base=env)
    env.clear()
    env.update(with_cann)
    return {str(fake.root): CANN_SHOWN_AS}


SETUPS = {"fake-cann": fake_cann_setup}
_REQUIRES = re.compile(r"<!--\s*tutorial-requires:\s*([^>]*?)\s*-->")


def required_tools(markdown: str) -> list[str]:
    """The programs a page declares it needs beyond opkit's own (`<!-- tutorial-requires: gdb -->`)."""
    return [t for m in _REQUIRES.finditer(markdown) for t in re.split(r"[\s,]+", m.group(1)) if t]


def english_pages() -> list[Path]:
    return sorted(p for p in TUTORIALS.glob("*.md") if not p.name.endswith(".zh.md") and p.name not in NOT_RUN)


# -- the runner's rules --------------------------------------------------------------------------------------


def test_steps_pair_each_command_block_with_the_output_block_right_after_it():
    page = ("Intro\n\n```bash\nopkit new a\n```\n\n```text\ncreated a\n```\n\nThen:\n\n"
            "```bash\nls\n```\nprose between\n```text\nnot an output\n```\n\n"
            "```cpp\nint x;\n```\n\n1. in a list\n\n    ```bash\n    echo hi\n    ```\n    ```text\n    hi\n    ```\n")
    s = steps(page)
    assert [(x.command.text, x.output.text if x.output else None) for x in s] == [
        ("opkit new a", "created a"), ("ls", None), ("echo hi", "hi")]
    assert s[0].command.line == 4


def test_fake_cann_setup_is_applied_to_every_block_and_its_path_masked(tmp_path):
    page = tmp_path / "t.md"
    page.write_text("<!-- tutorial-setup: fake-cann -->\n\n```bash\necho $ASCEND_HOME_PATH; command -v bisheng\n```\n\n"
                    f"```text\n{CANN_SHOWN_AS}\n{CANN_SHOWN_AS}/bin/bisheng\n```\n")
    assert run_tutorial(page, tmp_path / "folder") == []
    page.write_text("<!-- tutorial-setup: no-such -->\n```bash\ntrue\n```\n")
    (problem,) = run_tutorial(page, tmp_path / "folder2")
    assert "unknown tutorial-setup 'no-such'" in problem


def test_required_tools_are_read_from_the_page_comment():
    assert required_tools("x\n<!-- tutorial-requires: gdb, g++ -->\n<!--tutorial-requires:cmake-->") == ["gdb", "g++", "cmake"]
    assert required_tools("<!-- other comment -->") == []


def test_normalise_masks_folder_cache_times_hashes_and_timestamps(tmp_path):
    text = (f"created X in {tmp_path}/work/x\nobj {tmp_path}/c/sim-obj/main-559b5506a8b1.o\n"
            "built 3 (3 harness(es), 45.4 s) pass (0.15 s) took 12ms\n"
            "backup .opkit/backup/20261201-172233/ at 2026-12-01T17:22:33Z   \n\n\n")
    assert normalise(text, tmp_path, tmp_path / "c") == [
        "created X in ~/tutorial/work/x", "obj <cache>/sim-obj/main-<hash>.o",
        "built 3 (3 harness(es), <time>) pass (<time>) took <time>",
        "backup .opkit/backup/<timestamp>/ at <timestamp>"]
    # figures that are not times are kept: modelled microseconds, dtype names, counts
    assert normalise("21.5 µs float16 [1/13] 5.89e-08") == ["21.5 µs float16 [1/13] 5.89e-08"]


def test_figures_match_within_the_tolerance_and_integers_exactly():
    assert line_matches("max_rel_err=0.000488 matched=100.00%", "max_rel_err=0.000500 matched=100.00%")
    assert not line_matches("max_rel_err=0.000488 matched=100.00%", "max_rel_err=0.000600 matched=100.00%")
    assert line_matches("err=5.89e-08", "err=5.96e-08")
    assert not line_matches("13 passed, 0 failed", "12 passed, 1 failed")
    assert not line_matches("[1/13] pass my_op::smoke[float16@ascend910b2]", "[1/13] pass my_op::smoke[float32@ascend910b2]")
    assert not line_matches("pass x", "FAIL x")


def test_ellipsis_matches_text_within_a_line_and_whole_lines():
    assert line_matches("  compiling ... unit(s) with 1 job(s)", "  compiling 14 unit(s) with 1 job(s)")
    assert not line_matches("  compiling ... unit(s) with 1 job(s)", "  compiling 14 unit(s) with 2 job(s)")
    assert output_matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert output_matches(["a", "...", "z"], ["a", "z"])
    assert not output_matches(["a", "...", "z"], ["a", "b"])
    assert not output_matches(["a", "b"], ["a", "b", "c"])  # no silent extra lines


def test_a_block_runs_in_the_folder_the_previous_one_ended_in_and_reports_its_exit_status(tmp_path):
    page = tmp_path / "t.md"
    page.write_text("```bash\nmkdir -p w/x && cd w/x\necho made\n```\n\n```text\nmade\n```\n\n"
                    "```bash\npwd\nls nothing-here\n```\n\n```text\n~/tutorial/w/x\n...\n[exit 2]\n```\n")
    assert run_tutorial(page, tmp_path / "folder") == []
    page.write_text("```bash\necho 1.50\n```\n\n```text\n1.0\n```\n")
    (problem,) = run_tutorial(page, tmp_path / "folder2")
    assert "output differs" in problem and "--- the commands printed\n1.50" in problem
    page.write_text("```bash\nfalse\n```\n")
    (problem,) = run_tutorial(page, tmp_path / "folder3")
    assert "the block failed ([exit 1])" in problem


# -- the tutorials --------------------------------------------------------------------------------------------


def test_there_are_tutorials_and_each_has_a_chinese_page():
    pages = english_pages()
    assert len(pages) >= 1
    for page in pages:
        assert page.with_name(page.stem + ".zh.md").is_file(), f"{page.name} has no Chinese page"


@pytest.mark.parametrize("page", english_pages(), ids=lambda p: p.stem)
def test_chinese_page_has_the_same_blocks(page):
    """Same commands and same shown output, in the same order: only the prose is translated."""
    zh = page.with_name(page.stem + ".zh.md")

    def runnable(p: Path) -> list[tuple[str, str | None]]:
        return [(s.command.text, s.output.text if s.output else None) for s in steps(p.read_text(encoding="utf-8"))]

    en_steps, zh_steps = runnable(page), runnable(zh)
    assert en_steps, f"{page.name} has no ```bash block"
    assert zh_steps == en_steps


@pytest.mark.slow
@pytest.mark.parametrize("page", english_pages(), ids=lambda p: p.stem)
def test_tutorial_runs_as_written(page, tmp_path):
    import shutil

    missing = [t for t in required_tools(page.read_text(encoding="utf-8")) if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{page.name} needs {', '.join(missing)}, not found on PATH")
    problems = run_tutorial(page, tmp_path / "tutorial")
    assert not problems, "\n\n".join(problems)
