"""Who can read what: only indexed documents, whatever the path trick; bounded requests; no code from data.

Each attack goes through the service and through the real MCP server (spawned, spoken to
with the SDK's client): ``get_document``, ``get_note`` and the ``docshelf://doc/`` resource.
A secret word sits in a file outside the root, in an ignored file inside it and behind a
symlink that leads out of it; no answer may ever contain it.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import unicodedata
from pathlib import Path

import anyio
import pytest

from docshelf.errors import DocshelfError, InvalidQuery, NotFound
from docshelf.requests import MAX_K, MAX_QUERY_CHARS, MAX_TEXT_CHARS
from docshelf.search.engine import MAX_FUZZY_TERMS, fuzzy_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interfaces"))
from mcp_harness import call, call_error, connect, server_params  # noqa: E402

SECRET = "xylophonistsecret"
SRC = Path(__file__).resolve().parents[2] / "src" / "docshelf"


def make_tree(base: Path) -> Path:
    root, outside = base / "docs", base / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n\nThe {SECRET} lives outside the root.\n")
    (root / "a.md").write_text("# Alpha\n\nThe visible kestrel note.\n")
    (root / "my note.md").write_text("# Spaced\n\nA note whose name has a space.\n")
    (root / "café.md").write_text("# Café\n\nAccented name.\n")
    (root / "sub" / "b.md").write_text("# Beta\n\nNested note.\n")
    (root / "hidden.md").write_text(f"# Hidden\n\nIgnored {SECRET}.\n")
    (root / ".gitignore").write_text("hidden.md\n")
    os.symlink(outside / "secret.md", root / "link.md")
    os.symlink(outside, root / "outdir")
    return root


def attacks(base: Path) -> list[str]:
    secret, hidden = base / "outside" / "secret.md", base / "docs" / "hidden.md"
    return [
        "../outside/secret.md", "sub/../../outside/secret.md", "a.md/../../outside/secret.md",
        "..%2Foutside%2Fsecret.md", "%2e%2e/outside/secret.md", "%252e%252e%252foutside%252fsecret.md",
        "..\\outside\\secret.md", str(secret), "file://" + str(secret), str(hidden), "hidden.md", "link.md",
        "outdir/secret.md", "/etc/passwd", "~/.bashrc", "\uff0e\uff0e\uff0foutside\uff0fsecret.md",
        "\u2024\u2024/outside/secret.md", "a.md\x00../../outside/secret.md", "sub/./../../outside/secret.md",
        "docs/../outside/secret.md", str(base / "docs" / ".." / "outside" / "secret.md"), "", " ", ".", "/",
    ]


@pytest.fixture
def tree_shelf(make_shelf, fake_embedder, tmp_path):
    root = make_tree(tmp_path)
    shelf = make_shelf(fake_embedder)
    report = shelf.index([root])
    assert sorted(report.added) == ["a.md", "café.md", "my note.md", "sub/b.md"]
    assert report.skipped["link.md"] == "symlink outside the root"
    return shelf, tmp_path


def test_service_reads_only_indexed_documents(tree_shelf):
    shelf, base = tree_shelf
    assert "kestrel" in shelf.get_document("a.md").text
    assert "kestrel" in shelf.get_document(str(base / "docs" / "a.md")).text  # absolute path of an indexed doc
    assert "Accented" in shelf.get_document(unicodedata.normalize("NFC", "café.md")).text
    for path in attacks(base):
        with pytest.raises(DocshelfError) as info:
            shelf.get_document(path)
        assert isinstance(info.value, (NotFound, InvalidQuery)), (path, info.value)
        assert SECRET not in str(info.value)
    assert all(SECRET not in h.text for h in shelf.search(SECRET, mode="keyword").hits)
    with pytest.raises(NotFound):
        shelf.neighbors("' OR '1'='1")


def test_requests_are_bounded(tree_shelf):
    shelf, _ = tree_shelf
    with pytest.raises(InvalidQuery, match=str(MAX_QUERY_CHARS)):
        shelf.search("kestrel " * (MAX_QUERY_CHARS // 8 + 1))
    with pytest.raises(InvalidQuery, match=str(MAX_K)):
        shelf.search("kestrel", k=MAX_K + 1)
    with pytest.raises(InvalidQuery):
        shelf.get_document("a.md", max_chars=MAX_TEXT_CHARS + 1)
    many = " ".join(f"w{i}q" for i in range(MAX_QUERY_CHARS // 6))
    assert len(fuzzy_text(many).split()) == MAX_FUZZY_TERMS
    assert fuzzy_text(many).split()[:3] == ["w0q", "w1q", "w2q"]  # the query's own words come first
    assert shelf.search(many[:MAX_QUERY_CHARS], mode="fuzzy", k=5).mode == "fuzzy"


def _pythonpath() -> dict[str, str]:
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}


def test_mcp_tools_and_resources_read_only_indexed_documents(tmp_path):
    base = tmp_path
    root = make_tree(base)
    (root / "long.md").write_text("# Long\n\n" + "\n\n".join(f"Paragraph {i} about kestrel wings. " * 20
                                                             for i in range(200)))
    index = base / "index"
    params = server_params(index, str(root), env={"DOCSHELF_MODEL": "fake", **_pythonpath()})

    async def scenario() -> None:
        async with connect(params, base / "mcp-err.log") as session:
            with anyio.fail_after(90):
                while (await call(session, "index_status"))["documents"] < 5:
                    await anyio.sleep(0.3)
            doc = await call(session, "get_document", path="a.md")
            assert "kestrel" in doc["text"]
            spaced = await session.read_resource(doc["uri"].replace("a.md", "my%20note.md"))
            assert "space" in spaced.contents[0].text
            for path in attacks(base):
                if path:
                    text = await call_error(session, "get_document", path=path)
                    assert SECRET not in text, path
                text = await call_error(session, "get_note", path=path or " ")
                assert SECRET not in text, path
                try:
                    result = await session.read_resource("docshelf://doc/" + path.replace("\x00", "%00"))
                except Exception as exc:  # noqa: BLE001 - an error result is the right answer
                    assert SECRET not in str(exc), path
                else:
                    assert all(SECRET not in c.text for c in result.contents), path
                    pytest.fail(f"resource {path!r} returned {result.contents[0].text[:80]!r}")
            hits = await call(session, "search_docs", query=SECRET, mode="keyword", k=10)
            assert all(SECRET not in h["text"] for h in hits["hits"])
            # Bounded answers: k is capped by the schema, and a large answer is cut to the budget.
            await call_error(session, "search_docs", query="kestrel", k=MAX_K + 1)
            await call_error(session, "search_docs", query="k" * (MAX_QUERY_CHARS + 1))
            big = await session.call_tool("search_docs", {"query": "kestrel wings paragraph", "k": 50,
                                                          "mode": "keyword"})
            assert len(big.content[0].text) <= 25_000
            await call_error(session, "get_document", path="long.md", max_chars=MAX_TEXT_CHARS + 1)

    anyio.run(scenario)


# -- nothing untrusted is unpickled or executed --------------------------------------------------
_FORBIDDEN_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle", "joblib"}
_FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
_FORBIDDEN_ATTRS = {("yaml", "load"), ("yaml", "unsafe_load"), ("yaml", "full_load"), ("yaml", "load_all"),
                    ("yaml", "Loader"), ("yaml", "FullLoader"), ("yaml", "UnsafeLoader"), ("torch", "load")}


def test_no_code_path_unpickles_or_executes_data():
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            where = f"{path.relative_to(SRC)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                problems += [f"{where} imports {a.name}" for a in node.names if a.name.split(".")[0] in _FORBIDDEN_MODULES]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in _FORBIDDEN_MODULES:
                problems.append(f"{where} imports from {node.module}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FORBIDDEN_CALLS:
                problems.append(f"{where} calls {node.func.id}()")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if (node.value.id, node.attr) in _FORBIDDEN_ATTRS:
                    problems.append(f"{where} uses {node.value.id}.{node.attr}")
                if node.value.id in ("np", "numpy") and node.attr == "load":
                    problems.append(f"{where} uses numpy.load (pickles unless allow_pickle=False)")
            elif isinstance(node, ast.keyword) and node.arg == "shell" and getattr(node.value, "value", False):
                problems.append(f"{where} runs a shell")
    assert problems == []


def test_frontmatter_yaml_builds_plain_data_only():
    from docshelf.pipeline.parsers.markdown import frontmatter_metadata

    meta = frontmatter_metadata("x: !!python/object/apply:os.system ['echo pwned']\ntitle: ok")
    assert meta == {"frontmatter_error": "invalid YAML frontmatter at line 2: could not determine a constructor "
                                         "for the tag 'tag:yaml.org,2002:python/object/apply:os.system'"}
    assert json.dumps(frontmatter_metadata("tags: [a, b]\ndate: 2024-01-05")) == (
        '{"tags": ["a", "b"], "date": "2024-01-05"}')
