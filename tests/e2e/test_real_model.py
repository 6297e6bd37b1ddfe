"""End to end with the real packaged model (offline): parse, chunk, embed, store, search."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from docx import Document as DocxDocument
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

pytestmark = pytest.mark.e2e

CORPUS = {
    "guides/authentication.md": """---
title: Authentication
tags: [security]
type: guide
date: 2026-03-01
---
# Authentication

Every client sends an ingest token in the `Authorization` header.

## Rotating the ingest token

Issue a fresh credential with `acme token rotate`. The previous token keeps working for a
24-hour grace period so running jobs are not interrupted; revoke it early with
`acme token revoke OLD_ID`.
""",
    "guides/backups.md": """# Backups

## Snapshot schedule

The service writes a snapshot of the database every night at 02:00 UTC and keeps thirty days of them.

## Restoring

To bring data back after a disaster, stop the workers and run `acme restore --snapshot ID`.
""",
    "guides/scaling.md": """# Scaling

Add worker nodes when the queue grows. Each worker handles about 500 events per second;
the autoscaler starts new workers when latency stays above 2 seconds for five minutes.
""",
    "faq/billing.md": """# Billing FAQ

Invoices are sent on the first day of each month. You can pay by card or bank transfer,
and change the billing email under Settings > Account.
""",
    "reference/errors.txt": """Error reference

E1042 QUOTA_EXCEEDED: the workspace sent more events this month than its plan allows.
Upgrade the plan or wait for the monthly reset.

E2001 SCHEMA_MISMATCH: an event field has the wrong type for the dataset schema.
""",
}


@pytest.fixture(scope="module")
def real_shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    root = tmp_path_factory.mktemp("corpus")
    for rel, text in CORPUS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    # A real PDF whose second page is empty, and a real DOCX.
    pdf = canvas.Canvas(str(root / "manual.pdf"), pagesize=A4)
    pdf.drawString(72, 760, "Installation manual")
    pdf.drawString(72, 740, "Mount the sensor on a flat wall at least one metre above the floor.")
    pdf.showPage()
    pdf.showPage()
    pdf.drawString(72, 760, "Cleaning the lens with a dry microfibre cloth keeps readings accurate.")
    pdf.showPage()
    pdf.save()
    docx = DocxDocument()
    docx.add_heading("Onboarding handbook", level=1)
    docx.add_paragraph("New engineers get laptop access on their first morning from the IT desk.")
    docx.save(str(root / "handbook.docx"))
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    report = shelf.index([root])
    assert report.failed == {}
    return shelf


QUESTIONS = [
    ("how do I get a new credential and invalidate the old one?", "guides/authentication.md"),
    ("recover lost data after an outage", "guides/backups.md"),
    ("what happens when traffic grows and we need more capacity", "guides/scaling.md"),
    ("when do I receive my monthly bill", "faq/billing.md"),
    ("we sent too many events this month", "reference/errors.txt"),
    ("how high should the device be installed", "manual.pdf"),
    ("when do new hires receive their computer", "handbook.docx"),
]


@pytest.mark.parametrize("question,expected", QUESTIONS)
@pytest.mark.parametrize("mode", ["hybrid", "semantic"])
def test_questions_find_the_right_document(real_shelf, question, expected, mode):
    hits = real_shelf.search(question, k=3, mode=mode).hits
    assert hits[0].path == expected, [(h.path, h.score) for h in hits]
    assert 0.0 <= hits[-1].score <= hits[0].score <= 1.0


def test_hits_carry_citations(real_shelf):
    hit = real_shelf.search("rotate the ingest token", k=1).hits[0]
    assert (hit.path, hit.heading_path, hit.doc_type, hit.tags, hit.date) == (
        "guides/authentication.md", ("Authentication", "Rotating the ingest token"), "guide", ("security",), "2026-03-01"
    )
    assert (hit.start_line, hit.end_line) == (13, 15)
    pdf_hit = real_shelf.search("cleaning the lens", k=1).hits[0]
    assert (pdf_hit.path, pdf_hit.page) == ("manual.pdf", 3)


def test_exact_error_code_is_found_by_keyword(real_shelf):
    hits = real_shelf.search("E2001", k=1, mode="keyword").hits
    assert [h.path for h in hits] == ["reference/errors.txt"]


def test_cli_indexes_and_answers_offline(tmp_path):
    """The README's first command, through the installed `docshelf` entry point, no network."""
    docs = tmp_path / "docs"
    (docs / "guides").mkdir(parents=True)
    (docs / "guides" / "authentication.md").write_text(CORPUS["guides/authentication.md"])
    (docs / "guides" / "backups.md").write_text(CORPUS["guides/backups.md"])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DOCSHELF_INDEX_DIR": str(tmp_path / "index")}
    cli = [sys.executable, "-m", "docshelf.interfaces.cli"]
    indexed = subprocess.run([*cli, "index", str(docs), "--json"], capture_output=True, text=True, env=env, check=True)
    report = json.loads(indexed.stdout)
    assert sorted(report["added"]) == ["guides/authentication.md", "guides/backups.md"]
    found = subprocess.run(
        [*cli, "search", "how do I rotate the ingest token?", "--json", "-k", "1"],
        capture_output=True, text=True, env=env, check=True,
    )
    result = json.loads(found.stdout)
    assert result["hits"][0]["path"] == "guides/authentication.md"
    assert result["hits"][0]["heading_path"] == ["Authentication", "Rotating the ingest token"]
    assert "WARN" not in found.stderr, found.stderr  # no engine chatter on a user's terminal
    typo = subprocess.run([*cli, "search", "how do I rotaet the ingst tokn?", "-k", "1"],
                          capture_output=True, text=True, env=env, check=True)
    assert "rotaet → rotate" in typo.stdout + typo.stderr
    assert "Rotating the ingest token" in typo.stdout
    assert "WARN" not in typo.stderr, typo.stderr
    status = subprocess.run([*cli, "status", "--json"], capture_output=True, text=True, env=env, check=True)
    assert json.loads(status.stdout)["documents"] == 2
