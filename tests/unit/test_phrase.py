"""Phrase evidence (``search/phrase.py``): a pasted error or line of program output ranks the
page that prints it verbatim above pages sharing its words in another order (hybrid; set F,
benchmarks/README.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docshelf.search.phrase import longest_run, looks_pasted, phrase_share, query_words

OUTPUT = "Hero 1: id=None name='Deadpond' secret_name='Dive Wilson' age=None"


def test_query_words_drop_punctuation():
    assert query_words(OUTPUT) == ("hero", "1", "id", "none", "name", "deadpond", "secret", "name", "dive",
                                   "wilson", "age", "none")


def test_the_longest_run_counts_content_words_in_order():
    words = query_words("how do i print the secret name of a hero")
    # "secret name of a hero" is there in order: secret, name, hero (3 content words; "of a" are stopwords)
    assert longest_run(words, "we print: the secret name of a hero, and more") == 4  # print … hero
    assert longest_run(words, "the hero has a name that is secret") == 0  # the words, no run of two
    assert longest_run(query_words("how do i"), "how do i install it") == 0  # stopwords only


def test_phrase_share_needs_a_run_of_min_run_content_words():
    words = query_words(OUTPUT)
    page = "Running it prints:\n\nHero 1: id=None name='Deadpond' secret_name='Dive Wilson' age=None\n"
    assert phrase_share(words, page.lower(), 3) == 1.0
    assert phrase_share(words, "hero: name='deadpond', age=none, id=none", 3) == 0.0  # runs of two at most
    assert phrase_share(words, "hero: name='deadpond', age=none, id=none", 2) == 2 / 12


@pytest.mark.parametrize("query", [OUTPUT, "Hero: None printed after .first()", "sqlmodel_update",
                                   "KeyError from config('ENVIRONMENT')", "{'name': ['Missing data']}",
                                   "request.json is empty", "CRF01_1b2k", "python3.12 not found"])
def test_pasted_queries_are_recognised(query):
    assert looks_pasted(query)


@pytest.mark.parametrize("query", ["how do I update a hero", "self nesting recusive schema", "404 Hero not found",
                                   "why doesn't the test client use my event loop",
                                   # a version or a decimal in a sentence (set J's j09), also at its end
                                   "how do I install a Python 3.12 distribution with hatch", "upgrade to 3.12.7.",
                                   "why is 1.2 - 1.0 not exactly 0.2"])
def test_sentences_are_not(query):
    assert not looks_pasted(query)


PRINTS = f"""# Print the default values

Before the objects are saved, printing the first one shows that the database did not give it
an id yet:

```
{OUTPUT}
```
"""

EXPLAINS = """# Heroes and their fields

A hero has a name, a `secret_name` and an age. Deadpond's secret name is Dive Wilson; his age
is None and his id is None as well. Hero 1 or hero 2: each hero's id is None, its age may be
None, its name and secret name are strings. Name, secret name, age, id: a hero holds these values.
"""

OTHER_PAGES = (
    "# Install\n\nInstall the package with pip inside a virtual environment and import it in your code.\n",
    "# Engine\n\nCreate one engine for the whole application and share it between the sessions.\n",
    "# Delete\n\nDelete a row by selecting it first, then pass it to the session and commit.\n",
)


def test_a_pasted_output_line_finds_the_page_that_prints_it(shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "prints.md", PRINTS)
    write(docs, "explains.md", EXPLAINS)
    for n, text in enumerate(OTHER_PAGES):
        write(docs, f"page{n}.md", text)
    shelf.index([docs])

    def first(weight: float) -> str:
        options = shelf.searcher.options
        shelf.searcher.options = replace(options, fusion=replace(options.fusion, phrase_weight=weight))
        try:
            return shelf.search(OUTPUT, k=2, mode="hybrid").hits[0].path
        finally:
            shelf.searcher.options = options

    assert first(0.0) == "explains.md"  # more of the words, more often: BM25 and a bag of words prefer it
    assert first(0.5) == "prints.md"
    assert shelf.search(OUTPUT, k=2, mode="hybrid").hits[0].path == "prints.md"  # on by default
    assert shelf.search(OUTPUT, k=2, mode="keyword").hits[0].path == "explains.md"  # single modes unchanged


@pytest.mark.parametrize(("query", "code"), [("or_", True), ("Depends", True), ("isouter=True", True),
                                             ("RuntimeError: Stream consumed", True), ("how do I join", False),
                                             ("404 Hero not found", False), ("banana bread recipe", False)])
def test_queries_that_read_as_code(query, code):
    from docshelf.search.phrase import reads_as_code

    assert reads_as_code(query) is code


JOINS = """# Read Connected Data

## Include Everything on the Left

Pass `isouter=True` to `join()`: `select(Hero, Team).join(Team, isouter=True)` keeps the heroes
that have no team, with `None` in place of the team.
"""


def test_an_identifier_query_scores_at_least_its_keyword_estimate_in_hybrid(shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "joins.md", JOINS)
    for n, text in enumerate(OTHER_PAGES):
        write(docs, f"page{n}.md", text)
    shelf.index([docs])

    def top(code_lexical: bool):
        options = shelf.searcher.options
        shelf.searcher.options = replace(options, calibration=replace(options.calibration, code_lexical=code_lexical))
        try:
            return shelf.search("isouter", k=1, mode="hybrid").hits[0]
        finally:
            shelf.searcher.options = options

    keyword = shelf.search("isouter", k=1, mode="keyword").hits[0]
    on, off = top(True), top(False)
    assert on.path == off.path == keyword.path == "joins.md"  # ranking is unchanged: only the score
    assert off.score < keyword.score  # the model reads little into "isouter" (the fake's bag of words: one word)
    assert on.score == pytest.approx(keyword.score, abs=1e-6)
    assert shelf.search("isouter", k=1, mode="hybrid").hits[0].score == on.score  # on by default
