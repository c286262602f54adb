"""The docs site: the reference pages generated from the CLI and the op.yaml schema, the hook that keeps links
to repository files from breaking the build, the navigation, and `mkdocs build --strict` (when the docs extra
is installed)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from opkit.cli import reference

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _section(page: str, title: str) -> str:
    start = page.index(f"## `{title}`\n")
    end = page.find("\n## ", start + 1)
    return page[start:] if end < 0 else page[start:end]


def test_command_reference_lists_every_command_and_option_with_help_and_default():
    import typer.main

    from opkit.cli import app

    page = reference.commands_markdown()
    root = typer.main.get_command(app)
    seen = 0
    for path, cmd, _ctx in reference._walk(root, ["opkit"]):
        if len(path) == 1:
            continue
        section = _section(page, " ".join(path))
        for param in cmd.params:
            if getattr(param, "hidden", False):
                continue
            name = param.opts[0] if param.param_type_name == "option" else (param.metavar or param.name.upper())
            assert f"`{name}`" in section, (path, name)
            if param.help:
                assert " ".join(param.help.split()).replace("|", "\\|") in section, (path, name)
            seen += 1
    assert seen > 100  # every command's parameters, not a handful
    verify = _section(page, "opkit verify")
    assert "| `--timeout` `SECONDS` | option |  | `300.0` |" in verify
    assert "| `--force`, `--no-force` | option |  | --no-force |" in verify
    assert "opkit verify [OPTIONS] [OP...]..." in verify
    # the app's help option names (-h too) reach the subcommands
    assert re.search(r"^\| `(-h`, `--help|--help`, `-h)` \| option \|", verify, re.M)
    # the groups list their subcommands, linked to their sections
    assert "| [`merge`](#opkit-report-merge) |" in _section(page, "opkit report")
    assert "## `opkit ci init`" in page and "## `opkit spec schema`" in page


def test_op_yaml_reference_has_every_field_of_the_schema():
    from opkit.spec.schema import schema

    s = schema()
    page = reference.schema_markdown(s)
    for name in s["properties"]:
        required = "yes" if name in s["required"] else ""
        assert f"| `{name}` | {required} |" in page, name
    for def_name, node in s["$defs"].items():
        assert f"## {def_name}\n" in page
        for field in node.get("properties", {}):
            assert f"| `{field}` |" in page, (def_name, field)
    # nested inline objects get dotted paths; named definitions are linked
    assert "| `dims.<name>.multiple_of` |  | integer | ≥ 1 |" in page
    assert "list of [case](#case)" in page
    assert "Other fields are an error (except names starting with `x-`)." in page


def test_schema_reference_follows_a_changed_schema():
    """The page is computed from the schema it is given, nothing is hard-coded."""
    s = {"type": "object", "required": ["speed"], "additionalProperties": False,
         "properties": {"speed": {"type": "integer", "minimum": 3, "description": "How fast."},
                        "mode": {"enum": ["a", "b"], "default": "a"}}}
    page = reference.schema_markdown(s)
    assert "| `speed` | yes | integer | How fast. (≥ 3) |" in page
    assert '| `mode` |  | one of `"a"`, `"b"` | default `"a"` |' in page


def test_write_pages_rewrites_only_changed_pages(tmp_path):
    first = reference.write_pages(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in first] == list(reference.GENERATED_PAGES)
    stamp = {p: p.stat().st_mtime_ns for p in first}
    os.utime(first[0], ns=(1, 1))
    reference.write_pages(tmp_path)
    assert first[0].stat().st_mtime_ns == 1  # unchanged text: not rewritten
    first[1].write_text("stale\n")
    reference.write_pages(tmp_path)
    assert first[1].read_text().startswith("# op.yaml reference") and stamp


def test_links_to_repository_files_outside_docs_become_paths():
    page = SimpleNamespace(file=SimpleNamespace(src_uri="fidelity.md"))
    config = {"docs_dir": str(DOCS)}
    md = ("see [the notes](../opkit/sim/README.md#cache), [opkit/sim/README.md](../opkit/sim/README.md), "
          "[spec](spec.md), [gone](../no/such/file.md) and [site](https://example.org/x)")
    out = reference.on_page_markdown(md, page, config, None)
    assert out == ("see the notes (`opkit/sim/README.md`), opkit/sim/README.md, [spec](spec.md), "
                   "[gone](../no/such/file.md) and [site](https://example.org/x)")


def _nav_pages(nav) -> list[str]:
    out = []
    for item in nav:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                out += _nav_pages(value) if isinstance(value, list) else [value]
    return out


def _mkdocs_config() -> dict:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *a: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)


def test_every_page_is_in_the_nav_and_every_chinese_page_has_its_english_one():
    pages = set(_nav_pages(_mkdocs_config()["nav"]))
    english = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if not p.name.endswith(".zh.md")}
    english |= set(reference.GENERATED_PAGES)
    assert english == pages
    for zh in DOCS.rglob("*.zh.md"):
        assert zh.with_name(zh.name.replace(".zh.md", ".md")).is_file(), zh
    # the nav's titles are all translated for the Chinese site
    zh_lang = next(lang for lang in _mkdocs_config()["plugins"][1]["i18n"]["languages"] if lang["locale"] == "zh")
    titles = {k for item in _mkdocs_config()["nav"] for k in _titles(item)}
    assert {"Tutorials", "Reference", "Command reference"} <= set(zh_lang["nav_translations"]) <= titles


def _titles(item) -> list[str]:
    if isinstance(item, dict):
        out = []
        for k, v in item.items():
            out.append(k)
            if isinstance(v, list):
                for sub in v:
                    out += _titles(sub)
        return out
    return []


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocs_static_i18n") is None,
                    reason="the docs extra is not installed (pip install -e '.[docs]')")
def test_mkdocs_build_strict_makes_both_languages(tmp_path):
    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=ROOT,
                       capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stderr
    commands = (site / "reference" / "commands" / "index.html").read_text()
    assert "opkit verify" in commands and "--sweep-values" in commands
    assert (site / "reference" / "op-yaml" / "index.html").is_file()
    assert (site / "zh" / "reference" / "commands" / "index.html").is_file()  # English text on the zh site
    zh_first = (site / "zh" / "tutorials" / "first-operator" / "index.html").read_text()
    assert "生成算子工程" in zh_first and 'hreflang="en"' in zh_first
    assert re.search(r'<html lang="zh"', zh_first)
    assert (site / "search" / "search_index.json").is_file()
