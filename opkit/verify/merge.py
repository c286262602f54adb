"""`opkit report merge`: the results.json files of the shards of one verification, joined into one.

Each shard's results.json records its selection (``selection``: packages, filters, options, how many runs
the whole selection has, and the shard ``{index, count, runs}``; opkit.verify.shard). Shards are joined
only when they are all the slices of one selection, written by one opkit version in one layout
(``schema_version``): the same selection but for ``shard``, the same count N, each index 1..N exactly
once, and together as many runs as the selection has. The runs are put back in the order of an
unsharded run (each run's ``order``), and a package that did not build — one ``(build)`` record in every
shard that touched it — is one record again. So the merged file equals what one unsharded run writes,
its timing fields (``seconds``) and trace paths aside.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opkit.errors import UsageError
from opkit.verify.report import PASS, SCHEMA_VERSION, CaseResult, results_doc
from opkit.verify.shard import Shard, in_shard

BUILD_CASE = "(build)"


class MergeError(UsageError):
    """Shards that cannot be joined (exit 2): the message names the files and what differs."""


@dataclass
class Merged:
    doc: dict[str, Any]  # the merged results.json
    shards: int

    @property
    def results(self) -> list[CaseResult]:
        return [CaseResult.from_dict(c) for c in self.doc["cases"]]

    @property
    def verified(self) -> int:
        return sum(c["status"] in ("pass", "fail") for c in self.doc["cases"])

    @property
    def ok(self) -> bool:
        return self.verified > 0 and all(c["status"] in (PASS, "skip") for c in self.doc["cases"])


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MergeError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MergeError(f"{path}: is a folder; give the shard's results.json (e.g. {path / 'results.json'})") \
            from None
    except UnicodeDecodeError:
        raise MergeError(f"{path}: not a results.json written by opkit verify (not text)") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise MergeError(f"{path}: not a results.json written by opkit verify (not JSON: {exc})") from None
    if not isinstance(doc, dict) or "schema_version" not in doc or not isinstance(doc.get("cases"), list):
        raise MergeError(f"{path}: not a results.json written by opkit verify (no schema_version and cases)")
    version = doc["schema_version"]
    if version != SCHEMA_VERSION:
        newer = isinstance(version, int) and version > SCHEMA_VERSION
        raise MergeError(f"{path}: results.json layout version {version!r}; this opkit reads version {SCHEMA_VERSION}"
                         + (" (the file is from a newer opkit: merge with that version)" if newer else ""))
    if not isinstance(doc.get("selection"), dict):
        raise MergeError(f"{path}: records no selection (written by an opkit before `--shard`); rerun the shard "
                         "with this opkit")
    return doc


def _shard_of(path: Path, selection: dict[str, Any]) -> tuple[Shard, int]:
    """(the shard, its runs) a file holds; an unsharded run is shard 1/1."""
    raw = selection.get("shard")
    if raw is None:
        return Shard(1, 1), int(selection.get("runs", 0))
    try:
        return Shard(int(raw["index"]), int(raw["count"])), int(raw["runs"])
    except (KeyError, TypeError, ValueError):
        raise MergeError(f"{path}: its selection's shard {raw!r} is not of the form {{index, count, runs}}") from None


def _differs(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    if keys == ["packages"] and sorted(map(str, a.get("packages") or [])) == sorted(map(str, b.get("packages") or [])):
        return "the same packages in another order (the order of the runs): give them in one order"
    return "; ".join(f"{k}: {a.get(k)!r} against {b.get(k)!r}" for k in keys)


def merge(paths: list[Path]) -> Merged:
    """Join the shards' results.json files (any order); a MergeError when they are not every shard of one
    selection from one opkit version."""
    if not paths:
        raise MergeError("give the shards' results.json files: opkit report merge OUT.json SHARD.json...")
    docs = [(p, _load(p)) for p in paths]
    first_path, first = docs[0]
    version = first.get("opkit", {}).get("version")
    for p, d in docs[1:]:
        v = d.get("opkit", {}).get("version")
        if v != version:
            raise MergeError(f"shards from different opkit versions: {first_path} by {version}, {p} by {v}; run "
                             "every shard with one version")
    base = {k: v for k, v in first["selection"].items() if k != "shard"}
    for p, d in docs[1:]:
        other = {k: v for k, v in d["selection"].items() if k != "shard"}
        if other != base:
            raise MergeError(f"{first_path} and {p} are shards of different selections ({_differs(base, other)}); "
                             "every shard must be run with the same packages, filters and options")
    seen: dict[int, Path] = {}
    count: int | None = None
    held = 0
    shards: list[tuple[Path, dict[str, Any], Shard]] = []
    for p, d in docs:
        shard, runs = _shard_of(p, d["selection"])
        if count is None:
            count = shard.count
        elif shard.count != count:
            raise MergeError(f"{first_path} is a shard of {count}, {p} a shard of {shard.count} "
                             f"({shard}); merge the shards of one split")
        if shard.index in seen:
            raise MergeError(f"shard {shard} given twice: {seen[shard.index]} and {p}")
        seen[shard.index] = p
        held += runs
        shards.append((p, d, shard))
    assert count is not None
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise MergeError(f"shard(s) {', '.join(missing)} missing (given: "
                         f"{', '.join(f'{i}/{count}' for i in sorted(seen))}); merge needs every shard")
    total = int(base.get("runs", 0))
    if held != total:
        raise MergeError(f"the shards hold {held} runs, their selection has {total}: a shard's results.json is "
                         "from an interrupted or edited run; rerun it")
    cases: list[dict[str, Any]] = []
    where: dict[str, Path] = {}
    for p, d, shard in sorted(shards, key=lambda t: t[2].index):
        for c in d["cases"]:
            cid = c.get("id")
            if not isinstance(cid, str) or not isinstance(c.get("order"), int):
                raise MergeError(f"{p}: a run without an id and an order ({str(cid)[:80]}); not a results.json of "
                                 "this opkit")
            if cid in where:
                if c.get("case") == BUILD_CASE:
                    continue  # the package's build failure, recorded by each shard that touched it
                raise MergeError(f"run {cid} is in both {where[cid]} and {p}")
            if c.get("case") != BUILD_CASE and not in_shard(cid, shard):
                raise MergeError(f"{p}: run {cid} does not belong to shard {shard} (its id hashes to another "
                                 "slice); the file was not written by `opkit verify --shard`")
            where[cid] = p
            cases.append(c)
    cases.sort(key=lambda c: c["order"])
    selection = {**base, "shard": None}
    return Merged(results_doc(cases, dict(first.get("opkit", {})), selection), count)


# --- JUnit XML from other runners (pytest --opkit-shard I/N --junitxml FILE) -------------------------------

def is_junit(path: Path) -> bool:
    """True when ``path`` looks like XML (its first non-blank character is ``<``)."""
    try:
        with path.open("rb") as f:
            head = f.read(512).lstrip()
    except OSError:
        return False
    return head.startswith(b"<")


def _load_junit(path: Path) -> Any:
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise MergeError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MergeError(f"{path}: is a folder; give the shard's JUnit XML file") from None
    except ET.ParseError as exc:
        raise MergeError(f"{path}: not well-formed XML ({exc})") from None
    if root.tag == "testsuite":
        wrapper = ET.Element("testsuites")
        wrapper.append(root)
        root = wrapper
    if root.tag != "testsuites":
        raise MergeError(f"{path}: not a JUnit XML file (its root element is <{root.tag}>, not <testsuites> or "
                         "<testsuite>)")
    return root


def merge_junit(paths: list[Path]) -> tuple[str, dict[str, int]]:
    """JUnit XML files of shards joined into one: test suites of one name become one suite (its test cases
    in the order of the files given, its counts recomputed); a test case in two files is refused. JUnit
    files record no selection, so only results.json merges check that the shards make one run."""
    import xml.etree.ElementTree as ET

    if not paths:
        raise MergeError("give the shards' JUnit XML files: opkit report merge OUT.xml SHARD.xml...")
    out = ET.Element("testsuites")
    suites: dict[str, Any] = {}
    seen: dict[tuple[str, str], Path] = {}
    for p in paths:
        for suite in _load_junit(p).iter("testsuite"):
            name = suite.get("name", "")
            merged = suites.get(name)
            if merged is None:
                merged = suites[name] = ET.SubElement(out, "testsuite", dict(suite.attrib))
                for props in suite.findall("properties"):
                    merged.append(props)
            for case in suite.findall("testcase"):
                key = (case.get("classname", ""), case.get("name", ""))
                if key in seen:
                    raise MergeError(f"test case {'::'.join(k for k in key if k)} is in both {seen[key]} and {p}: "
                                     "these are not shards of one run")
                seen[key] = p
                merged.append(case)
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    for suite in out.iter("testsuite"):
        cases = suite.findall("testcase")
        counts = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
                  "errors": sum(c.find("error") is not None for c in cases),
                  "skipped": sum(c.find("skipped") is not None for c in cases)}
        time_s = sum(_float(c.get("time")) for c in cases)
        for k, v in counts.items():
            suite.set(k, str(v))
            total[k] += v
        suite.set("time", f"{time_s:.3f}")
        seconds += time_s
    for k, v in total.items():
        out.set(k, str(v))
    out.set("time", f"{seconds:.3f}")
    ET.indent(out)
    return ET.tostring(out, encoding="unicode", xml_declaration=True) + "\n", total


def _float(text: str | None) -> float:
    try:
        return float(text or 0)
    except ValueError:
        return 0.0


@dataclass
class MergeOutcome:
    """What `opkit report merge` did: one line to print, and whether every merged run passed."""

    line: str
    ok: bool
    verified: bool  # some run was judged (passed or failed)


def merge_reports(out: Path, shards: list[Path], junit: Path | None = None, force: bool = False) -> MergeOutcome:
    """Merge the shards (all results.json, or all JUnit XML) into ``out`` (and a JUnit ``junit`` from
    results.json shards), under opkit's write rule; output paths are checked before anything is read."""
    from opkit import writes
    from opkit.verify.report import write_doc, write_junit

    writes.check(out, force, "OUT")
    if junit is not None:
        writes.check(junit, force, "--junit")
    kinds = {is_junit(p) for p in shards}
    if len(kinds) > 1:
        raise MergeError("the shards mix JUnit XML and results.json files: give one kind")
    if kinds == {True}:
        if junit is not None:
            raise MergeError("--junit: the shards are JUnit files and OUT is their merged JUnit; --junit goes with "
                             "results.json shards")
        text, counts = merge_junit(shards)
        writes.write_text(out, text, force, "OUT")
        judged = counts["tests"] > counts["skipped"] + counts["errors"]
        return MergeOutcome(f"merged {len(shards)} JUnit file(s), {counts['tests']} test case(s): "
                            f"{counts['failures']} failed, {counts['errors']} errors, {counts['skipped']} skipped; "
                            f"JUnit: {out}", judged and not counts["failures"] and not counts["errors"], judged)
    merged = merge(shards)
    write_doc(merged.doc, out, force, "OUT")
    if junit is not None:
        write_junit(merged.results, junit, force=force)
    s = merged.doc["summary"]
    return MergeOutcome(f"merged {merged.shards} shard(s), {len(merged.doc['cases'])} run record(s): {s['pass']} "
                        f"passed, {s['fail']} failed, {s['error']} errors; results: {out}"
                        + (f"; JUnit: {junit}" if junit is not None else ""), merged.ok, merged.verified > 0)
