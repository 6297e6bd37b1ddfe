"""Build the BEIR corpus of the FAQ set (benchmarks/beir/faq) from the FAQ pages that two
PyPI sdists ship: one record per question, its title the FAQ's question and its text the
answer, reStructuredText markup read as a person reads it (roles and links as their text).

    pip download --no-deps --no-binary :all: django==5.2.8 celery==5.5.3   # then untar both
    python benchmarks/faq_corpus.py django-5.2.8/docs/faq celery-5.5.3/docs/faq.rst > corpus.jsonl

The Python FAQ set (benchmarks/beir/faq-python) reads Debian's python3.11-doc sources:

    python benchmarks/faq_corpus.py --python /usr/share/doc/python3.11/html/_sources/faq > corpus.jsonl

The queries and qrels are written by hand (benchmarks/beir/faq/SOURCE.md); this script only
makes the corpus reproducible from the sdists.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ADORN = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
ROLE = re.compile(r":[\w:+-]+:`([^`<]*?)(?:\s*<[^>]*>)?`")
LINK = re.compile(r"`([^`<]+?)\s*<[^>]+>`__?")
REF = re.compile(r"`([^`]+)`_(?!_)")
TARGET = re.compile(r"^\.\. _[^:]*:.*$")


def inline(text: str, exact: bool = False) -> str:
    """Roles, links and literals as their text (``:setting:`X``` → ``X``, ``~a.b.C`` → ``C``).

    ``exact`` (the Python set): ``:pep:`8``` reads ``PEP 8`` and dunder names stay whole; the
    Django/Celery corpus was built without it (one ``__name__`` there reads ``__name_``), and
    is kept as committed."""
    if exact:
        text = re.sub(r":pep:`(\d+)`", r"PEP \1", text)
    text = ROLE.sub(lambda m: m.group(1).lstrip("~").split(".")[-1] if m.group(1).startswith("~") else m.group(1), text)
    text = LINK.sub(r"\1", text)
    text = REF.sub(r"\1", text)
    if exact:
        text = re.sub(r"\b(\w*[^\W_])_(?!\w)", r"\1", text)  # Drupal_ → Drupal, __name__ kept
    else:
        text = re.sub(r"(\w+)_\b(?!\w)", r"\1", text)  # Drupal_ → Drupal
    text = text.replace("``", "`").replace("**Answer:**", "").replace("**Answer**:", "")
    return text.replace("\\*", "*")


def sections(path: Path) -> list[tuple[int, str, str, list[str]]]:
    """(line, adornment char, title, body lines) of every section of a reST file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[tuple[int, str, str, list[str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and not ADORN.match(line) and ADORN.match(below) and len(below.rstrip()) >= len(line.rstrip()):
            overlined = i > 0 and ADORN.match(lines[i - 1]) is not None
            out.append((i, ("over" if overlined else "") + below[0], line.strip(), []))
            i += 2
            continue
        if out and not (ADORN.match(line) and i + 1 < len(lines) and lines[i + 1].strip() and i + 2 < len(lines)
                        and ADORN.match(lines[i + 2])):
            out[-1][3].append(line)
        i += 1
    return out


def clean(body: list[str], exact: bool = False) -> str:
    kept: list[str] = []
    skip_indented = False
    for line in body:
        if skip_indented:
            if line.startswith((" ", "\t")) or not line.strip():
                continue
            skip_indented = False
        if TARGET.match(line):
            skip_indented = True  # a link target's URL may continue on the next, indented line
            continue
        if exact and line.strip().startswith((".. XXX", ".. only::", ".. index::", ".. doctest::", ".. testsetup::", ".. testcode::")):
            continue
        if line.strip().startswith(".. contents::"):
            skip_indented = True
            continue
        if re.match(r"^\.\. (code-block|sourcecode)::", line.strip()):
            continue
        m = re.match(r"^\.\. (note|seealso|warning)::\s*(.*)$", line.strip())
        if m:
            kept.append(f"{m.group(1).capitalize()}: {m.group(2)}".rstrip())
            continue
        if ADORN.match(line):
            continue
        kept.append(inline(line[:-1] if line.endswith("::") and not line.strip() == "::" else line, exact))
    text = "\n".join(kept).strip()
    return re.sub(r"\n{3,}", "\n\n", text)


def records(path: Path, prefix: str, entry: str, groups: str, exact: bool = False) -> list[dict[str, str]]:
    """One record per section adorned with ``entry``; sections adorned with any other
    character of ``groups`` close it, deeper ones stay in its text (their title as a line)."""
    out: list[dict[str, str]] = []
    current: dict[str, object] | None = None
    for _, char, title, body in sections(path):
        if char == entry:
            current = {"title": inline(title, exact).strip(), "body": list(body)}
            out.append(current)  # type: ignore[arg-type]
        elif char in groups or char.startswith("over"):
            current = None
        elif current is not None:
            current["body"].extend(["", inline(title, exact), "", *body])  # type: ignore[union-attr]
    return [{"_id": f"{prefix}-{n:02d}", "title": r["title"], "text": clean(r["body"], exact)}  # type: ignore[arg-type]
            for n, r in enumerate(out, start=1)]


def main(django_faq: str, celery_faq: str) -> None:
    rows: list[dict[str, str]] = []
    for name in ("general", "install", "usage", "help", "models", "admin", "contributing"):
        rows += records(Path(django_faq) / f"{name}.txt", f"django-{name}", "=", "")
    rows += records(Path(django_faq) / "troubleshooting.txt", "django-troubleshooting", "-", "=")
    rows += records(Path(celery_faq), "celery", "-", "=")
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


def main_python(faq_dir: str) -> None:
    """The eight pages of the Python FAQ, one record per ``-`` section, ids ``python-<page>-NN``."""
    for name in ("general", "programming", "design", "library", "extending", "windows", "gui", "installed"):
        for row in records(Path(faq_dir) / f"{name}.rst.txt", f"python-{name}", "-", "=", exact=True):
            print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1] == "--python":
        main_python(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2])
