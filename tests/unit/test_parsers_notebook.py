"""Jupyter notebooks: markdown and code cells, headings across cells, cells cited by number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docshelf.errors import ParseError
from docshelf.pipeline.parsers import default_registry

REGISTRY = default_registry()


def notebook(cells: list[dict], **metadata) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}, indent=1).encode()


def md(*lines: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": [line + "\n" for line in lines]}


def code(source: str, outputs: list[dict] | None = None) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": source, "outputs": outputs or []}


def test_cells_become_blocks_cited_by_cell_number(tmp_path: Path) -> None:
    data = notebook([
        md("# Tokens { #tokens }", "", "Rotate them often. #ops ![diagram](data:image/png;base64,iVBORw0KGgo=)"),
        code("import acme\nclient = acme.Client()", [{"output_type": "stream", "name": "stdout", "text": ["ready\n"]}]),
        md("## Rotation"),
        {"cell_type": "raw", "metadata": {}, "source": "raw text"},
        code("client.rotate()", [
            {"output_type": "execute_result", "execution_count": 2, "metadata": {},
             "data": {"text/plain": ["'rotated'"]}},
            {"output_type": "display_data", "metadata": {},
             "data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure size 640x480>"]}},
        ]),
        code("client.fail()", [{"output_type": "error", "ename": "TokenExpired", "evalue": "token abc expired",
                                "traceback": ["\x1b[0;31mTokenExpired\x1b[0m ..."]}]),
        code("   "),
    ], kernelspec={"name": "python3", "language": "python", "display_name": "Python 3"})
    doc = REGISTRY.parse(tmp_path / "tokens.ipynb", data)
    t, r = ("Tokens",), ("Tokens", "Rotation")
    assert [(b.kind, b.text, b.heading_path, b.page, b.start_line, b.end_line) for b in doc.blocks] == [
        ("heading", "# Tokens", t, 1, None, None),
        ("paragraph", "Rotate them often. #ops diagram", t, 1, None, None),
        ("code", "```python\nimport acme\nclient = acme.Client()\n```", t, 2, None, None),
        ("paragraph", "Output:\nready", t, 2, None, None),
        ("heading", "## Rotation", r, 3, None, None),
        ("paragraph", "raw text", r, 4, None, None),
        ("code", "```python\nclient.rotate()\n```", r, 5, None, None),
        ("paragraph", "Output:\n'rotated'", r, 5, None, None),
        ("code", "```python\nclient.fail()\n```", r, 6, None, None),
        ("paragraph", "Output:\nTokenExpired: token abc expired", r, 6, None, None),
    ]
    assert doc.title == "Tokens"
    assert doc.page_count == 7
    assert doc.metadata == {"format": "notebook", "language": "python", "cells": 7, "tags": ["ops"]}


def test_long_outputs_are_cut(tmp_path: Path) -> None:
    text = "".join(f"line {i}\n" for i in range(50))
    doc = REGISTRY.parse(tmp_path / "n.ipynb", notebook([code("loop()", [
        {"output_type": "stream", "name": "stdout", "text": text}])]))
    shown = doc.blocks[1].text
    assert shown == "Output:\n" + "\n".join(f"line {i}" for i in range(10)) + "\n…"


def test_language_from_metadata_and_nbformat3(tmp_path: Path) -> None:
    data = json.dumps({"nbformat": 3, "metadata": {"language_info": {"name": "R"}}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 2, "source": "Old style"},
        {"cell_type": "code", "input": "x <- 1", "outputs": []},
    ]}]}).encode()
    doc = REGISTRY.parse(tmp_path / "old.ipynb", data)
    assert [(b.kind, b.text, b.page) for b in doc.blocks] == [
        ("heading", "## Old style", 1), ("code", "```r\nx <- 1\n```", 2)]
    assert doc.title == "old"


@pytest.mark.parametrize(("data", "reason"), [
    (b'{"cells": [', "not a valid notebook (invalid JSON at line 1 column 12: Expecting value)"),
    (b"", "not a valid notebook (empty file)"),
    (b"[1, 2]", "not a valid notebook (the JSON is a list, not a notebook object)"),
    (b'{"metadata": {}}', "not a valid notebook (no 'cells' list (not a Jupyter notebook))"),
])
def test_broken_notebooks_raise_parse_error_with_reason(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "broken.ipynb"
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(path, data)
    assert (info.value.path, info.value.reason) == (str(path), reason)


def test_a_notebook_hit_is_cited_by_cell(tmp_path: Path, shelf) -> None:
    from docshelf.interfaces.output import citation

    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "tokens.ipynb").write_bytes(notebook([md("# Tokens"), code("rotate_tokens(days=90)")]))
    shelf.index([tmp_path / "nb"])
    hit = shelf.search("rotate_tokens", mode="keyword", k=1).hits[0]
    assert (hit.page, hit.start_line) == (2, None)
    assert citation(hit) == "tokens.ipynb › Tokens (cell 2)"
    assert "rotate_tokens(days=90)" in shelf.get_document("tokens.ipynb", page=2).text
