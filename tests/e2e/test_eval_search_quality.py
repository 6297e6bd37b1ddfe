"""Search quality with the real packaged model: paraphrased questions, exact names, one corpus.

Small on purpose (seconds), but it exercises the real embedder, the store's BM25 and the
default hybrid fusion together: paraphrases with few shared words must still find their
page in hybrid mode (dense leads), and exact identifiers must too (BM25 leads).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

PAGES = {
    "restart.md": "# Restart policies\n\nSet `restartPolicy: Always` so the kubelet starts the container again "
    "whenever its process exits, whatever the exit code.",
    "tls.md": "# Certificates\n\nThe ingress terminates TLS with the certificate stored in the `tls-secret` "
    "secret; renew it with cert-manager before it expires.",
    "backup.md": "# Backups\n\nA nightly CronJob dumps the PostgreSQL database with pg_dump and uploads the "
    "archive to object storage, keeping thirty days of history.",
    "scaling.md": "# Autoscaling\n\nThe HorizontalPodAutoscaler adds replicas when average CPU utilisation "
    "stays above 70 percent and removes them when load falls.",
    "logs.md": "# Logging\n\nEvery pod writes JSON lines to stdout; Fluent Bit ships them to Loki, where "
    "queries filter by namespace and label.",
    "secrets.md": "# Secrets\n\nCredentials never live in the repository: the External Secrets operator "
    "copies them from Vault into Kubernetes Secret objects.",
    "parser.md": "# Header parsing\n\nCall `parseHTTPHeader(raw)` to split a raw header block into a "
    "case-insensitive mapping of field names to values.",
    "limits.md": "# Rate limits\n\nThe gateway answers 429 Too Many Requests once a client exceeds 100 requests "
    "per minute; the Retry-After header says when to try again.",
}

QUESTIONS = [
    ("my app keeps dying, how do I make it come back up on its own?", "restart.md"),
    ("how do we keep an off-site copy of the data every night?", "backup.md"),
    ("where do passwords and API keys come from if not from git?", "secrets.md"),
    ("how do I get more instances running automatically when usage spikes?", "scaling.md"),
    ("why am I being told to slow down when I call the API a lot?", "limits.md"),
    ("where can I read what my containers printed?", "logs.md"),
    ("parse_http_header", "parser.md"),
    ("tls-secret renew", "tls.md"),
]


@pytest.fixture(scope="module")
def real_shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    root = tmp_path_factory.mktemp("quality")
    docs = root / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text)
    shelf = Docshelf(Settings(index_dir=root / "index"))
    shelf.index([docs])
    return shelf


@pytest.mark.parametrize("question, page", QUESTIONS)
def test_hybrid_finds_the_page_for_paraphrases_and_names(real_shelf, question, page):
    result = real_shelf.search(question, k=3)
    assert result.mode == "hybrid"
    assert result.hits[0].path == page, [(h.path, h.score) for h in result.hits]


def test_hybrid_is_never_worse_than_the_better_single_mode_here(real_shelf):
    def top1(mode: str) -> int:
        return sum(bool(r.hits) and r.hits[0].path == p for q, p in QUESTIONS for r in [real_shelf.search(q, k=1, mode=mode)])

    assert top1("hybrid") >= max(top1("keyword"), top1("semantic"))


OFF_TOPIC = ["recipe for banana bread", "xyzzy plugh", "who painted the Mona Lisa", "best hiking trails in Patagonia"]


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword", "fuzzy"])
def test_scores_say_when_the_documents_do_not_answer(real_shelf, mode):
    """The top score is an absolute estimate: every off-topic query scores below every real
    question here, in every mode, and the default mode's confidence says 'none' for them."""
    answered = [real_shelf.search(q, k=1, mode=mode) for q, _ in QUESTIONS]
    unanswered = [real_shelf.search(q, k=1, mode=mode) for q in OFF_TOPIC]
    top = lambda r: r.hits[0].score if r.hits else 0.0  # noqa: E731
    if mode in ("hybrid", "semantic"):  # keyword/fuzzy cannot judge paraphrases that share no word
        assert min(map(top, answered)) > max(map(top, unanswered)), (
            [(q, top(r)) for (q, _), r in zip(QUESTIONS, answered)], [top(r) for r in unanswered])
        assert all(r.confidence in ("high", "medium") for r in answered), [r.confidence for r in answered]
    assert all(r.confidence == "none" for r in unanswered), [(r.query, top(r)) for r in unanswered]
    # min_score drops what the scores call irrelevant
    assert all(real_shelf.search(q, k=5, mode=mode, min_score=0.3).hits == () for q in OFF_TOPIC)
