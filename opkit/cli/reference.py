"""Reference pages generated from the code itself, for the docs site: every command of the `opkit` CLI
(walked from the typer/click app: arguments, options, defaults, help) and every field of op.yaml (walked
from its JSON Schema). The site's build hook (mkdocs.yml's `hooks:`, the functions at the end) calls these;
nothing is copied by hand, so the pages cannot drift from the code.

    python -m opkit.cli.reference commands   # the command reference, as Markdown
    python -m opkit.cli.reference op-yaml    # the op.yaml reference, as Markdown
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# -- the command reference ----------------------------------------------------------------------------


# Duck-typed on purpose: typer ships its own copy of click in recent versions, plain click in older ones.
Command = Any


def _context(cmd: Command, name: str, parent: Any = None) -> Any:
    """A context as the command line makes it: the app's settings (its help option names) reach every
    subcommand through its parent."""
    import typer

    settings = dict(getattr(cmd, "context_settings", None) or {}) if parent is None else {}
    return typer.Context(cmd, info_name=name, parent=parent, **settings)


def _is_option(param: Any) -> bool:
    return getattr(param, "param_type_name", "") == "option"


def _root_command() -> Command:
    import typer.main

    from opkit.cli import app

    return typer.main.get_command(app)


def _walk(cmd: Command, path: list[str], parent: Any = None) -> Iterator[tuple[list[str], Command, Any]]:
    """Every command under `cmd` with its context, groups before their subcommands, in the order `--help`
    lists them."""
    ctx = _context(cmd, path[-1], parent)
    yield path, cmd, ctx
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _walk(sub, [*path, name], ctx)


def _cell(text: str | None) -> str:
    """Text fit for one Markdown table cell."""
    if not text:
        return ""
    return " ".join(text.split()).replace("|", "\\|")


def _default(param: Any) -> str:
    if _is_option(param) and param.is_flag and not param.secondary_opts:
        return "off" if not param.default else "on"
    value = param.default
    if value is None or value == () or value == [] or callable(value):
        return ""
    if _is_option(param) and param.secondary_opts and isinstance(value, bool):
        return param.opts[0] if value else param.secondary_opts[0]
    if hasattr(value, "value"):  # an Enum
        value = value.value
    return f"`{value}`"


def _param_name(param: Any) -> str:
    if _is_option(param):
        names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
        metavar = "" if param.is_flag else f"`{param.metavar or param.name.upper()}`"
        return f"{names} {metavar}".rstrip()
    return f"`{param.metavar or param.name.upper()}`"


def _param_row(param: Any) -> str:
    kind = "option" if _is_option(param) else "argument"
    notes = []
    if param.required:
        notes.append("required")
    if getattr(param, "multiple", False) or (kind == "argument" and param.nargs == -1):
        notes.append("repeatable" if kind == "option" else "one or more" if param.required else "zero or more")
    choices = getattr(getattr(param, "type", None), "choices", None)
    if choices:
        notes.append("one of " + ", ".join(f"`{c}`" for c in choices))
    help_text = _cell(getattr(param, "help", None))
    return f"| {_param_name(param)} | {kind} | {_cell('; '.join(notes))} | {_default(param)} | {help_text} |"


def commands_markdown() -> str:
    """The command reference: one section per command, its usage line, help text and parameter table."""
    root = _root_command()
    lines = [
        "# Command reference",
        "",
        "Generated from the `opkit` command itself when the site is built (`python -m opkit.cli.reference commands`",
        "prints it). What the commands share — how they find packages, the write rule, exit codes — is in",
        "[The opkit command](../cli.md).",
        "",
    ]
    for path, cmd, ctx in _walk(root, ["opkit"]):
        if len(path) > 1:
            lines += [f"## `{' '.join(path)}`", ""]
        usage = " ".join(cmd.collect_usage_pieces(ctx))
        lines += ["```text", f"{' '.join(path)} {usage}".rstrip(), "```", ""]
        for paragraph in (cmd.help or "").split("\n\n"):
            if paragraph.strip():
                lines += [" ".join(paragraph.split()), ""]
        if hasattr(cmd, "list_commands"):
            subs = [(n, cmd.get_command(ctx, n)) for n in cmd.list_commands(ctx)]
            lines += ["| command | does |", "|---|---|"]
            for name, sub in subs:
                if sub is not None and not sub.hidden:
                    anchor = "-".join([*path[1:], name])
                    lines.append(f"| [`{name}`](#opkit-{anchor}) | {_cell(sub.get_short_help_str(200))} |")
            lines.append("")
        params = [p for p in cmd.get_params(ctx) if not getattr(p, "hidden", False)]
        if params:
            lines += ["| parameter | kind | notes | default | help |", "|---|---|---|---|---|"]
            lines += [_param_row(p) for p in params]
            lines.append("")
    return "\n".join(lines)


# -- the op.yaml reference ----------------------------------------------------------------------------


def _schema() -> dict[str, Any]:
    from opkit.spec.schema import schema

    return schema()


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _type(node: dict[str, Any]) -> str:
    """A schema node's type in words, with links to the sections of its named definitions."""
    if "$ref" in node:
        name = _ref_name(node["$ref"])
        return f"[{name}](#{name})"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(_type(v) for v in node[key])
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = node.get("items")
        return f"list of {_type(items)}" if isinstance(items, dict) and items else "list"
    if kind == "object" or "properties" in node or "additionalProperties" in node:
        extra = node.get("additionalProperties")
        if "properties" in node:
            return "mapping (fields below)"
        if isinstance(extra, dict) and extra:
            return f"mapping of name → {_type(extra)}"
        return "mapping"
    return kind or "any"


def _constraints(node: dict[str, Any]) -> str:
    parts = []
    for key, word in (("minimum", "≥"), ("maximum", "≤"), ("exclusiveMinimum", ">"), ("exclusiveMaximum", "<")):
        if key in node:
            parts.append(f"{word} {node[key]}")
    if "minItems" in node:
        parts.append(f"at least {node['minItems']} item(s)")
    if "maxItems" in node:
        parts.append(f"at most {node['maxItems']} item(s)")
    if "minLength" in node and node["minLength"] > 0:
        parts.append("not empty")
    if "pattern" in node:
        parts.append(f"matches `{node['pattern']}`")
    if "default" in node:
        parts.append(f"default `{json.dumps(node['default'])}`")
    return "; ".join(parts)


def _describe(node: dict[str, Any]) -> str:
    words = [t for t in (node.get("title"), node.get("description")) if t]
    text = ": ".join(words) if len(words) == 2 and not words[1].startswith(words[0]) else (words[-1] if words else "")
    extra = _constraints(node)
    return _cell(f"{text} ({extra})" if text and extra else text or extra)


def _inline_objects(name: str, node: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The inline object schemas a field holds (not named definitions), with the path suffix that reaches them."""
    if "$ref" in node:
        return
    if "properties" in node:
        yield name, node
    for key in ("oneOf", "anyOf"):
        for variant in node.get(key, []):
            yield from _inline_objects(name, variant)
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        yield from _inline_objects(f"{name}[]", node["items"])
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and "properties" in extra:
        yield from _inline_objects(f"{name}.<name>", extra)


def _field_rows(node: dict[str, Any], prefix: str = "") -> Iterator[str]:
    required = set(node.get("required", []))
    for name, sub in node.get("properties", {}).items():
        path = f"{prefix}{name}"
        yield f"| `{path}` | {'yes' if name in required else ''} | {_cell(_type(sub))} | {_describe(sub)} |"
        for inner_path, inner in _inline_objects(path, sub):
            yield from _field_rows(inner, f"{inner_path}.")


def _section(title: str, node: dict[str, Any]) -> list[str]:
    lines = [f"## {title}", ""]
    if node.get("title") or node.get("description"):
        lines += [_describe(node), ""]
    if "properties" in node:
        lines += ["| field | required | type | meaning |", "|---|---|---|---|", *_field_rows(node), ""]
    else:
        lines += [f"Type: {_type(node)}.", ""]
    if node.get("additionalProperties") is False:
        lines += ["Other fields are an error" + (" (except names starting with `x-`)." if any(
            p.startswith("^x-") for p in node.get("patternProperties", {})) else "."), ""]
    return lines


def schema_markdown(schema: dict[str, Any] | None = None) -> str:
    """The op.yaml reference: the top-level fields, then each named definition of the schema."""
    schema = schema if schema is not None else _schema()
    lines = [
        "# op.yaml reference",
        "",
        "Generated from opkit's JSON Schema of op.yaml (`opkit spec schema` prints it; `python -m",
        "opkit.cli.reference op-yaml` prints this page) when the site is built. What the fields mean together,",
        "with examples, is in [The op.yaml spec](../spec.md).",
        "",
    ]
    lines += _section("op.yaml", schema)
    for name, node in schema.get("$defs", {}).items():
        lines += _section(name, node)
    return "\n".join(lines)


# -- the docs site's build hook (mkdocs.yml: hooks) -------------------------------------------------

GENERATED_PAGES = {"reference/commands.md": commands_markdown, "reference/op-yaml.md": schema_markdown}


def write_pages(docs_dir: Path) -> list[Path]:
    """Write the generated pages under docs_dir (a file is rewritten only when its text changed, so a
    `mkdocs serve` does not rebuild forever). They are build products: docs/reference/.gitignore keeps them
    out of git."""
    written = []
    for uri, make in GENERATED_PAGES.items():
        path = docs_dir / uri
        text = make() + "\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def on_config(config: Any) -> Any:
    """MkDocs hook: the generated pages are on disk before MkDocs lists the docs folder (the i18n plugin
    sorts only files that are in it)."""
    write_pages(Path(config["docs_dir"]))
    return config


_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs hook: a link from a page to a file of the repository outside docs/ (a package's README, the
    simulator's notes) has no page on the site; it becomes the link text with the file's path from the
    repository's top, e.g. "the simulator's notes (`opkit/sim/README.md`)". A link to nothing stays broken,
    and `mkdocs build --strict` reports it."""
    docs_dir = Path(config["docs_dir"]).resolve()
    top = docs_dir.parent
    page_dir = (docs_dir / page.file.src_uri).parent

    def unlink(m: re.Match[str]) -> str:
        target = m.group(2)
        if "://" in target or target.startswith(("/", "mailto:")):
            return m.group(0)
        path = (page_dir / target).resolve()
        if path.is_relative_to(docs_dir) or not path.is_relative_to(top) or not path.exists():
            return m.group(0)
        rel = path.relative_to(top).as_posix()
        text = m.group(1)
        return text if text.strip("`") == rel else f"{text} (`{rel}`)"

    return _LINK.sub(unlink, markdown)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    pages = {"commands": commands_markdown, "op-yaml": schema_markdown}
    if len(args) != 1 or args[0] not in pages:
        sys.stderr.write(f"usage: python -m opkit.cli.reference {{{'|'.join(pages)}}}\n")
        return 2
    sys.stdout.write(pages[args[0]]() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
