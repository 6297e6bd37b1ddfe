"""Scores with a meaning: code-token detection, the calibrated estimate, confidence and min_score."""

from __future__ import annotations

import math

import pytest

from docshelf.analysis import code_tokens, contains_token
from docshelf.search.calibrate import CalibrationParams, Calibrator, capped, confidence, coverage
from docshelf.search.fuse import FusionParams, exact_bonus, short_prior


@pytest.mark.parametrize("query, tokens", [
    ("response_model_exclude_unset", ["response_model_exclude_unset"]),
    ("what does app.teardown_appcontext() do", ["app.teardown_appcontext"]),
    ("Depends", ["depends"]),  # a one-word query is a name lookup
    ("How do I use dependencies", []),  # a capitalised first word is not code
    ("413 Content Too Large", ["413"]),
    ("raise HTTPException with a `detail`", ["httpexception", "detail"]),
    ("IL-6 and p53 in 10 mice", ["il-6", "p53"]),
    ("cors midleware alow origins", []),
])
def test_code_tokens(query, tokens):
    assert code_tokens(query) == tokens


def test_contains_token_matches_whole_tokens_only():
    assert contains_token("Set `max_part_size` to 1 MiB", "max_part_size")
    assert contains_token("answers 413 Content Too Large", "413")
    assert not contains_token("port 4130", "413")
    assert not contains_token("my_max_part_size_limit", "max_part_size")


def test_coverage_counts_query_content_words_in_the_text():
    # content terms: enable, cors, origin (how/do/i/for/any... are stop words or too short)
    assert coverage("how do I enable CORS for an origin", "Enabling CORS: list each allowed origin.") == 1.0
    assert coverage("enable cors origin", "CORS headers") == pytest.approx(1 / 3)
    assert coverage("the of and", "anything") == 0.0


def test_confidence_levels_and_capped_scores():
    assert [confidence(s) for s in (0.95, 0.85, 0.84, 0.5, 0.3, 0.29, 0.0, None)] == [
        "high", "high", "medium", "medium", "low", "none", "none", "none"]
    assert capped([0.4, 0.9, 0.3, 0.35]) == [0.4, 0.4, 0.3, 0.3]


def test_what_the_documentation_lacks_caps_the_label_whatever_the_score():
    # a term no indexed document mentions: at most medium; an identifier none holds: at most low
    assert [confidence(0.97, ("mongodb",)), confidence(0.6, ("mongodb",)), confidence(0.4, ("mongodb",))] == [
        "medium", "medium", "low"]
    assert [confidence(0.97, ("deleted_at",)), confidence(0.6, ("mongodb", "deleted_at")),
            confidence(0.1, ("deleted_at",)), confidence(None, ("deleted_at",))] == ["low", "low", "none", "none"]


def test_dense_estimate_is_measured_against_the_corpus_background():
    seen: list[str] = []

    def top_cosine(query: str) -> float:
        seen.append(query)
        return 0.25

    cal = Calibrator(top_cosine, CalibrationParams(slope=9.0, pivot=0.15, coverage_weight=1.0))
    # x = (0.5 - 0.25) / 0.75 = 1/3; z = 9 * (1/3 - 0.15) + 1 * (1.0 - 0.5) = 2.15
    assert cal.dense(0.5, 1.0) == pytest.approx(1 / (1 + math.exp(-2.15)))
    # at the background a passage is judged irrelevant whatever its words
    assert cal.dense(0.25, 0.0) < 0.2
    assert len(seen) == 8  # the null queries ran once, then the background is cached
    cal.dense(0.6, 0.5)
    assert len(seen) == 8
    # a model whose cosines sit higher has a higher background: the same cosine means less
    high = Calibrator(lambda q: 0.6)
    assert high.dense(0.65, 0.5) < cal.dense(0.65, 0.5)


def test_lexical_estimate_and_fusion_priors():
    assert Calibrator.lexical(0.5, 0.5) == 0.5
    assert Calibrator.lexical(0.8, 1.0) > 0.9 > 0.1 > Calibrator.lexical(0.1, 0.0)
    params = FusionParams(short_words=40, short_penalty=0.4, exact_weight=0.3)
    assert short_prior(40, params) == 1.0 and short_prior(100, params) == 1.0
    assert short_prior(10, params) == pytest.approx(1 - 0.4 * 0.75)
    # the prior follows the keyword side's share of zconf: full at equal shares, half at most dense
    assert short_prior(10, params, dense_share=0.5) == pytest.approx(1 - 0.4 * 0.75)
    assert short_prior(10, params, dense_share=0.95) == pytest.approx(1 - 0.2 * 0.75)
    assert short_prior(10, params, dense_share=0.7) == pytest.approx(1 - 0.4 * 0.6 * 0.75)
    assert short_prior(10, FusionParams(short_penalty=0.4, short_min_scale=1.0), dense_share=0.95) == pytest.approx(0.7)
    assert exact_bonus(0.5, 1.0, params) == pytest.approx(0.65)
    assert exact_bonus(0.5, 0.0, params) == 0.5


def test_every_search_carries_a_confidence_and_min_score_filters_on_the_shown_score(shelf, tmp_path, write):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# Cookies\n\nCall `set_cookie(key, value)` on the response to set a cookie.\n")
    write(docs, "b.md", "# Threads\n\nSync endpoints run in a thread pool of 40 tokens.\n")
    shelf.index([docs])
    for mode in ("hybrid", "semantic", "keyword", "fuzzy"):
        result = shelf.search("set_cookie", mode=mode)
        assert result.confidence in ("high", "medium", "low", "none")
        scores = [h.score for h in result.hits]
        assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
        assert result.confidence == confidence(scores[0] if scores else None)
        floor = scores[0] if scores else 0.5
        kept = shelf.search("set_cookie", mode=mode, min_score=floor).hits
        assert kept and all(h.score >= floor for h in kept)
    assert shelf.search("set_cookie", mode="keyword", min_score=1.0).hits == ()
    nothing = shelf.search("zzzqqq", mode="keyword")
    assert (nothing.hits, nothing.confidence) == ((), "none")


def test_hybrid_estimate_adds_the_searchs_own_evidence_and_never_takes_away():
    from docshelf.search.calibrate import QueryEvidence

    params = CalibrationParams(slope=9.0, pivot=0.15, coverage_weight=1.0, fused_pivot=0.2, best_share=0.5,
                               bm25_weight=1.0, pool_weight=1.0, agreement_weight=1.0)
    cal = Calibrator(lambda q: 0.25, params)
    seen = QueryEvidence(best_cosine=0.7, pool_coverage=0.5, agreement=1 / 3)
    # x = (0.5 - 0.25) / 0.75 = 1/3, best = (0.7 - 0.25) / 0.75 = 0.6;
    # z = 9 * (0.5 * 1/3 + 0.5 * 0.6 - 0.2) + 1 * (1.0 - 0.5) + 1 * 0.75 + 1 * 0.5 + 1 * 1/3 = 4.28...
    z = 9 * (0.5 / 3 + 0.3 - 0.2) + 0.5 + 0.75 + 0.5 + 1 / 3
    assert cal.dense(0.5, 1.0, 0.75, seen) == pytest.approx(1 / (1 + math.exp(-z)))
    # semantic mode (no query evidence): the plain dense estimate, pivot 0.15
    assert cal.dense(0.5, 1.0) == pytest.approx(1 / (1 + math.exp(-(9 * (1 / 3 - 0.15) + 0.5))))
    # the pool's best cosine counts at least as the hit's own (a hit can be the best itself)
    alone = QueryEvidence(best_cosine=0.0, pool_coverage=0.0, agreement=0.0)
    assert cal.dense(0.5, 1.0, 0.0, alone) == pytest.approx(1 / (1 + math.exp(-(9 * (1 / 3 - 0.2) + 0.5))))
    # each sign that the documentation covers the question raises the estimate; none lowers it below alone
    for more in (QueryEvidence(0.7, 0.0, 0.0), QueryEvidence(0.0, 1.0, 0.0), QueryEvidence(0.0, 0.0, 1.0)):
        assert cal.dense(0.5, 1.0, 0.0, more) > cal.dense(0.5, 1.0, 0.0, alone)
    assert cal.dense(0.5, 1.0, 0.9, alone) > cal.dense(0.5, 1.0, 0.1, alone)


def test_near_ties_within_a_page_go_to_the_section_holding_most_query_words():
    from docshelf.search.fuse import within_page_ties

    ranked = [("child", 0.858), ("parent", 0.853), ("other", 0.84), ("sibling", 0.70)]
    page = {"child": "mw.md", "parent": "mw.md", "sibling": "mw.md", "other": "x.md"}
    bm25 = {"child": 11.9, "parent": 13.1, "sibling": 20.0, "other": 30.0}
    # parent and child are within 2 % of the page's best: BM25 orders them, and they trade scores;
    # the sibling (18 % lower) and the other page keep their places
    assert within_page_ties(ranked, page, bm25, 0.02) == [
        ("parent", 0.858), ("child", 0.853), ("other", 0.84), ("sibling", 0.70)]
    assert within_page_ties(ranked, page, bm25, 0.0) == ranked
    # the page's best score, so the order of pages, never changes
    assert within_page_ties(ranked, page, bm25, 0.5)[0] == ("sibling", 0.858)


def test_query_evidence_of_a_hybrid_search(shelf, tmp_path, write):
    from docshelf.search.engine import agreement, top_pages

    assert agreement(["a.md", "b.md", "c.md"], ["c.md", "d.md", "a.md"]) == pytest.approx(2 / 3)
    assert agreement(["a.md"], []) == 0.0
    docs = tmp_path / "docs"
    write(docs, "a.md", "# Cookies\n\nCall `set_cookie(key, value)` on the response to set a cookie.\n")
    write(docs, "b.md", "# Threads\n\nSync endpoints run in a thread pool of 40 tokens.\n")
    shelf.index([docs])
    scored = shelf.searcher.hybrid("cookie thread", 100, None)
    chunks = {c.id: c for c, _ in scored}
    cosine = {cid: 1.0 - n / 10 for n, (cid, c) in enumerate(sorted(chunks.items(), key=lambda kv: kv[1].path))}
    assert [path for _, path in top_pages(cosine, chunks)] == ["a.md", "b.md"]
    evidence = {cid: (cosine[cid], 2.0 if chunks[cid].path == "b.md" else 0.0) for cid in chunks}
    seen = shelf.searcher.query_evidence("cookie thread gettext", scored, evidence)
    # the best cosine of the pool; 2 of 3 terms found; BM25's only page (b.md) is among the dense top 3
    assert (seen.best_cosine, seen.pool_coverage, seen.agreement) == (1.0, pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert shelf.searcher.query_evidence("cookie", scored, {cid: (None, 1.0) for cid in chunks}) is None


def test_pool_coverage_reads_the_top_candidates_so_scores_do_not_depend_on_k(shelf, tmp_path, write):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# Cookies\n\nCall `set_cookie(key, value)` on the response to set a cookie.\n")
    write(docs, "b.md", "# Threads\n\nSync endpoints run in a thread pool of 40 tokens.\n")
    shelf.index([docs])
    scored = shelf.searcher.hybrid("cookie thread", 100, None)
    assert len(scored) == 2
    # cookie and thread occur in the pool, gettext nowhere
    assert shelf.searcher.pool_coverage("cookie thread gettext", scored) == pytest.approx(2 / 3)
    cookie_first = sorted(scored, key=lambda cs: "Cookies" not in cs[0].title)
    assert shelf.searcher.pool_coverage("cookie thread gettext", cookie_first[:1]) == pytest.approx(1 / 3)
    one, ten = shelf.search("cookie thread", k=1), shelf.search("cookie thread", k=10, max_per_doc=1)
    assert one.hits[0].score == ten.hits[0].score


def test_dense_share_grows_when_the_best_keyword_match_holds_few_query_terms():
    from docshelf.search.fuse import dense_weight, zconf

    params = FusionParams()
    # raw BM25 12 (unit 0.545, under the 0.55 gate): the share follows the BM25 top's term coverage
    assert dense_weight(0.45, 12.0, params) == 0.5
    assert dense_weight(0.45, 12.0, params, lexical_coverage=0.8) == 0.5
    assert dense_weight(0.45, 12.0, params, lexical_coverage=0.5) == pytest.approx(0.9)
    assert dense_weight(0.45, 12.0, params, lexical_coverage=0.0) == pytest.approx(0.95)  # capped
    # a strong BM25 match (raw 30, unit 0.75: a long query matching many terms) keeps its share
    assert dense_weight(0.45, 30.0, params, lexical_coverage=0.2) == 0.5
    # BM25 ranks "distractor" first on incidental words, the dense side ranks "answer" first
    lexical = {"distractor": 12.0, "answer": 2.0, "other": 4.0, "fourth": 0.0}
    dense = {"distractor": 0.30, "answer": 0.45, "other": 0.25, "fourth": 0.20}
    before = zconf(lexical, dense, params)
    after = zconf(lexical, dense, params, lexical_coverage=0.4)
    assert max(before, key=before.__getitem__) == "distractor"
    assert max(after, key=after.__getitem__) == "answer"


def test_hybrid_passes_the_bm25_top_chunks_term_coverage_to_the_fusion(shelf, tmp_path, write, monkeypatch):
    from docshelf.search import engine

    docs = tmp_path / "docs"
    write(docs, "a.md", "# Cookies\n\nCall `set_cookie(key, value)` on the response to set a cookie.\n")
    write(docs, "b.md", "# Threads\n\nSync endpoints run in a thread pool of 40 tokens.\n")
    shelf.index([docs])
    seen: list[float | None] = []
    real = engine.fuse_hybrid

    def spy(lexical, dense, params, lexical_coverage=None):
        seen.append(lexical_coverage)
        return real(lexical, dense, params, lexical_coverage)

    monkeypatch.setattr(engine, "fuse_hybrid", spy)
    shelf.search("cookie response gettext docker", mode="hybrid")  # the cookie page holds 2 of 4 terms
    assert seen == [pytest.approx(0.5)]
    seen.clear()
    shelf.search("zzzqqq", mode="hybrid")  # no BM25 match at all: nothing to judge
    assert seen == [None]


def test_own_heading_words_are_what_a_section_adds_to_its_page_and_parents():
    from docshelf.search.fuse import own_heading_words

    # "debugger" shares its stem with the page's "Debugging": only "enabling" tells the section apart
    assert own_heading_words("Debugging Applications", ("Debugging Applications", "Enabling the Debugger")) == ("enabling",)
    assert own_heading_words("Shell Completion", ("Shell Completion",)) == ()  # the page's introduction
    assert own_heading_words("Shell Completion", ()) == ()
    assert own_heading_words("background", ("BackgroundTasks",)) == ("tasks",)  # identifiers split like the index does
    assert own_heading_words("Testing", ("Testing", "File System Isolation", "Running tests in parallel")) == (
        "running", "parallel")


def test_heading_share_counts_the_own_heading_words_a_query_term_matches():
    from docshelf.search.fuse import heading_share
    from docshelf.search.highlight import term_stems

    stems = term_stems("how do I enable the interactive debugger")
    assert heading_share(stems, "Debugging Applications", ("Debugging Applications", "Enabling the Debugger")) == 1.0
    assert heading_share(stems, "Debugging Applications", ("Debugging Applications", "Debugger PIN")) == 0.0
    assert heading_share(term_stems("install with pip"), "Installation", ("Installation", "Installing/upgrading from the PyPI")) == (
        pytest.approx(1 / 3))
    assert heading_share((), "Installation", ("Installation", "Installing")) == 0.0


def test_two_short_words_name_each_other_only_when_equal_or_plural():
    """Set J's ``instal hatch with pipx``: the "pip" section (which mentions pipx) took the citation
    from "pipx", since a 4-letter query term started with the 3-letter heading word."""
    from docshelf.search.fuse import heading_share, names_word
    from docshelf.search.highlight import term_stems

    stems = term_stems("instal hatch with pipx")
    assert heading_share(stems, "Installation", ("Installation", "pip")) == 0.0
    assert heading_share(stems, "Installation", ("Installation", "pipx")) == 1.0
    assert not names_word("pip", "pipe") and not names_word("pipx", "pip")
    assert names_word("app", "apps") and names_word("apps", "app") and names_word("tag", "tag")
    assert names_word("env", "environme")  # a short word inside a long one is still named (an abbreviation)
    assert names_word("environment", "env") and names_word("enabling", "enabl")


def test_a_heading_word_of_the_same_root_as_a_query_term_is_named():
    """Set J's ``compatable release operater ~=``: the keyword side matched the misspelt word
    (Snowball: ``compat``), the prefix did not, and the "Operators" table that links to
    "Compatible release" took the citation."""
    from docshelf.search.fuse import heading_share, word_root
    from docshelf.search.highlight import query_terms, term_stems

    query = "compatable release operator"
    path = ("Dependency configuration", "Version specifiers", "Compatible release")
    roots = frozenset(word_root(t) for t in query_terms(query))
    assert heading_share(term_stems(query), "Dependency configuration", path) == 0.5
    assert heading_share(term_stems(query), "Dependency configuration", path, roots) == 1.0
    assert heading_share(term_stems("name"), "Advanced", ("Advanced", "Matrix", "Naming"),
                         frozenset({word_root("name")})) == 1.0


def test_named_sections_first_trades_scores_within_a_page_only():
    from docshelf.search.fuse import named_sections_first

    ranked = [("intro", 0.746), ("other", 0.70), ("child", 0.630), ("far", 0.55)]
    page = {"intro": "sc.md", "child": "sc.md", "far": "sc.md", "other": "x.md"}
    share = {"intro": 0.0, "child": 1.0, "far": 1.0, "other": 1.0}.get
    # the child (within 20 % of its page's best) named by the query: 0.630 × 1.3 > 0.746; it takes
    # the page's best score, the intro takes the child's; "far" (26 % below) and the other page stay
    assert named_sections_first(ranked, page, share, 0.2, 0.3) == [
        ("child", 0.746), ("other", 0.70), ("intro", 0.630), ("far", 0.55)]
    assert named_sections_first(ranked, page, share, 0.2, 0.0) == ranked
    assert named_sections_first(ranked, page, share, 0.0, 0.3) == ranked
    # a weight too small to make up the gap leaves the order alone
    assert named_sections_first(ranked, page, share, 0.2, 0.1) == ranked


def test_a_pages_recap_ranks_after_the_sections_it_sums_up():
    from docshelf.search.fuse import is_summary_heading, named_sections_first

    assert is_summary_heading(("Update Data with FastAPI", "Recap"))
    assert is_summary_heading(("Automatic IDs", "Review All the Code"))
    assert is_summary_heading(("Guide", "In summary"))
    assert is_summary_heading(("git-stash(1)", "SYNOPSIS"))  # a man page's forms name options, never explain them
    assert not is_summary_heading(("Update Data with FastAPI", "Review the Result"))
    assert not is_summary_heading(())
    ranked = [("recap", 0.99), ("other", 0.95), ("explains", 0.90), ("far", 0.70)]
    page = {"recap": "update.md", "explains": "update.md", "far": "update.md", "other": "x.md"}
    summary = {"recap": True, "explains": False, "far": False, "other": False}.__getitem__
    share = {"recap": 0.0, "explains": 0.0, "far": 0.0, "other": 0.0}.__getitem__
    # the recap (0.99 × 0.7) drops below the section within 20 % of it, which takes the page's best
    # score; the section 29 % below and the other page stay where they were
    assert named_sections_first(ranked, page, share, 0.2, 0.3, summary, 0.3) == [
        ("explains", 0.99), ("other", 0.95), ("recap", 0.90), ("far", 0.70)]
    assert named_sections_first(ranked, page, share, 0.2, 0.3, summary, 0.0) == ranked
    assert named_sections_first(ranked, page, share, 0.2, 0.0, summary, 0.0) == ranked


def test_opens_subsection_reads_the_heading_paths():
    from docshelf.search.fuse import opens_subsection

    # a page's introduction (no heading, or the title alone) leads into every section of its page
    assert opens_subsection("Installation", ("Installation",), ("Installation", "Virtual environments"))
    assert opens_subsection("Middleware", (), ("CORSMiddleware",))
    assert not opens_subsection("Middleware", (), ())
    # a section leads into its own subsections, not into a sibling or back to its parent
    section = ("Installation", "Virtual environments")
    assert opens_subsection("Installation", section, (*section, "Create an environment"))
    assert not opens_subsection("Installation", section, ("Installation", "Dependencies"))
    assert not opens_subsection("Installation", section, ("Installation",))


def test_a_lead_in_yields_the_citation_to_the_subsection_that_follows_it():
    from docshelf.search.fuse import subsection_after_lead_in

    ranked = [("lead", 0.90), ("other", 0.85), ("sub", 0.80), ("far", 0.60), ("o2", 0.50)]
    page = {"lead": "install.rst", "sub": "install.rst", "far": "install.rst", "other": "x.md", "o2": "x.md"}
    follows = {"lead": "sub", "other": "o2"}.get
    # the subsection (11 % below the lead-in) takes the page's best score; the other page's
    # follower is 41 % below its best, so that page stays as it was
    assert subsection_after_lead_in(ranked, page, follows, 0.2) == [
        ("sub", 0.90), ("other", 0.85), ("lead", 0.80), ("far", 0.60), ("o2", 0.50)]
    assert subsection_after_lead_in(ranked, page, follows, 0.0) == ranked
    assert subsection_after_lead_in(ranked, page, follows, 0.1) == ranked
    # only a page's best chunk yields, and only to a follower on its own page
    assert subsection_after_lead_in(ranked, page, {"sub": "far"}.get, 0.5) == ranked
    assert subsection_after_lead_in(ranked, page, {"lead": "other"}.get, 0.5) == ranked



def test_heading_is_named_when_the_query_holds_the_section_s_own_name():
    from docshelf.search.fuse import heading_is_named

    assert heading_is_named(code_tokens("AcceptHeaderVersioning"), ("API Reference", "AcceptHeaderVersioning"))
    # a method's heading with its arguments, named with its class
    assert heading_is_named(code_tokens("GenericAPIView.get_queryset"), ("Methods", "get_queryset(self)"))
    assert heading_is_named(code_tokens("how do I use OrderingFilter"), ("API Guide", "OrderingFilter"))
    # words of a heading are not a name; a name the heading only starts with is another name
    assert not heading_is_named(code_tokens("should one table model inherit"), ("Models", "Inheritance and Table Models"))
    assert not heading_is_named(code_tokens("OrderingFilter"), ("API Guide", "Ordering"))
    assert not heading_is_named(code_tokens("OrderingFilter"), ())


def test_a_lead_in_the_query_names_keeps_the_citation():
    """Set I's ``AcceptHeaderVersioning``: the class's section is a lead-in to "Using accept
    headers with vendor media types"; the query names the lead-in, not the subsection."""
    from docshelf.search.fuse import heading_is_named, subsection_after_lead_in

    heading = {"lead": ("API Reference", "AcceptHeaderVersioning"),
               "sub": ("API Reference", "AcceptHeaderVersioning", "Using accept headers with vendor media types"),
               "other": ("API Reference", "URLPathVersioning")}
    ranked = [("lead", 0.94), ("sub", 0.81), ("other", 0.40)]
    page = dict.fromkeys(heading, "versioning")
    follows = {"lead": "sub"}.get

    def named(query: str):
        return lambda key: heading_is_named(code_tokens(query), heading[key])

    # named by the query: the lead-in keeps it
    assert subsection_after_lead_in(ranked, page, follows, 0.2, named("AcceptHeaderVersioning")) == ranked
    # no name, or no test given: it yields as before
    assert subsection_after_lead_in(ranked, page, follows, 0.2, named("version by accept header"))[0] == ("sub", 0.94)
    assert subsection_after_lead_in(ranked, page, follows, 0.2)[0] == ("sub", 0.94)
    # both named: the subsection is the more specific section, as before
    heading["sub"] = (*heading["lead"], "AcceptHeaderVersioning")
    assert subsection_after_lead_in(ranked, page, follows, 0.2, named("AcceptHeaderVersioning"))[0] == ("sub", 0.94)
