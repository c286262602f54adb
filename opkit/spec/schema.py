"""The JSON Schema of op.yaml (shipped as op.schema.json) and its translation into clear messages."""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from opkit.spec.yamlio import Document, format_path

_TYPE_NAMES = {
    "object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
    "number": "a number", "boolean": "true or false", "null": "nothing",
}


def schema_text() -> str:
    return resources.files("opkit.spec").joinpath("op.schema.json").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(schema_text())


def _found(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (int, float)):
        return f"{value!r} (a number)"
    return repr(value)


def _title(error: Any) -> str:
    return error.schema.get("title") or "valid"


def _message(error: Any, doc: Document) -> tuple[tuple, str]:
    """(path, text) of one jsonschema error, in the words of the spec, not of JSON Schema."""
    path = tuple(error.absolute_path)
    v = error.validator
    inst = error.instance
    if v == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = [k for k in inst if k not in allowed and not any(
            re.match(p, k) for p in error.schema.get("patternProperties", {}))]
        key = extra[0] if extra else "?"
        hint = difflib.get_close_matches(key, allowed, n=1)
        did = f"; did you mean '{hint[0]}'?" if hint else ""
        return path + (key,), f"unknown field '{key}' (expected one of: {', '.join(allowed)}){did}"
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return path, f"missing field '{missing}'"
    if v == "enum":
        options = error.validator_value
        shown = ", ".join(str(o) for o in options[:12]) + (", ..." if len(options) > 12 else "")
        hint = difflib.get_close_matches(str(inst), [str(o) for o in options], n=1)
        did = f"; did you mean '{hint[0]}'?" if hint and not isinstance(inst, (dict, list)) else ""
        return path, f"{_found(inst)} is not {_title(error)} (expected one of {shown}){did}"
    if v == "type":
        want = error.validator_value
        want = [want] if isinstance(want, str) else want
        words = " or ".join(_TYPE_NAMES.get(w, w) for w in want)
        return path, f"expected {words}, found {_found(inst)}"
    if v in ("oneOf", "anyOf"):
        return path, f"{_found(inst)} is not {_title(error)}"
    if v == "pattern":
        return path, f"{_found(inst)} is not {_title(error)}"
    if v in ("minItems", "maxItems"):
        bound = "at least" if v == "minItems" else "at most"
        return path, f"expected {bound} {error.validator_value} item(s), found {len(inst)}"
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        rel = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[v]
        return path, f"{_found(inst)} must be {rel} {error.validator_value}"
    if v in ("minProperties", "maxProperties"):
        return path, f"expected {'at least' if v == 'minProperties' else 'at most'} {error.validator_value} entr(y/ies)"
    return path, error.message


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def schema_problems(doc: Document, limit: int = 20) -> list[str]:
    """Every schema violation of ``doc`` as ``file:line: field: message``, in document order."""
    validator = _validator()
    seen: set[str] = set()
    found: list[tuple[int, str]] = []
    for error in validator.iter_errors(doc.data):
        path, text = _message(error, doc)
        msg = f"{doc.where(path)}: {format_path(path)}: {text}"
        if msg not in seen:
            seen.add(msg)
            found.append((doc.line(path), msg))
    found.sort(key=lambda t: t[0])
    return [m for _, m in found[:limit]]
