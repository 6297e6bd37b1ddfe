"""The default mode cites the most specific section that answers (issue 8 item 1), on shipped
documentation with the real model.

Real pages of sets C (Click, MyST Markdown) and D (Werkzeug, reStructuredText). Each question
below found its page either way, but without ``fuse.named_sections_first`` the top hit cited
the page's introduction ("Shell Completion", "Debugging Applications"), which repeats the
question's topic words, instead of the child section whose own heading names what is asked
("Enabling Completion", "Enabling the Debugger").
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

DOCSETS = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets"
PAGES = (("click", "shell-completion.md"), ("click", "testing.md"), ("click", "commands.md"),
         ("werkzeug", "debug.rst"), ("werkzeug", "installation.rst"),
         ("sqlmodel", "tutorial/fastapi/multiple-models.md"), ("sqlmodel", "tutorial/relationship-attributes/back-populates.md"))
CASES = (
    ("how to enable tab completion in bash for my program", "shell-completion.md", "Enabling Completion"),
    ("how do I enable the interactive debugger", "debug.rst", "Enabling the Debugger"),
)


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    docs = tmp_path_factory.mktemp("docs")
    for docset, page in PAGES:
        shutil.copyfile(DOCSETS / docset / "docs" / page, docs / Path(page).name)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([docs]).failed == {}
    return shelf


@pytest.mark.parametrize(("query", "page", "section"), CASES)
def test_the_top_hit_cites_the_section_whose_own_heading_the_question_names(shelf, query, page, section):
    from docshelf.search.engine import Searcher

    # the heading rule alone: the lead-in rule (below) cites these subsections too
    fusion = replace(shelf.searcher.options.fusion, subsection_band=0.0)
    searcher = Searcher(shelf.searcher.store, shelf.searcher.embedder, replace(shelf.searcher.options, fusion=fusion))
    off = replace(searcher.options, fusion=replace(fusion, heading_weight=0.0))
    without = Searcher(searcher.store, searcher.embedder, off)
    top = searcher.search(query, max_per_doc=1).hits[0]
    before = without.search(query, max_per_doc=1).hits[0]
    assert shelf.searcher.search(query, max_per_doc=1).hits[0].heading_path == top.heading_path
    assert (top.path, top.heading_path[-1]) == (page, section), top.heading_path
    # the same page either way (pages keep their places), another section without the rule
    assert before.path == page and before.heading_path[-1] != section, before.heading_path


LEAD_IN_CASES = (
    # sets D (reST), F (Markdown; F's own question ft09 is the typo version of the last one)
    ("how to create a virtual environment for my project", "installation.rst",
     ("Installation", "Virtual environments"), "Create an environment"),
    ("should one table model inherit from another table model", "multiple-models.md",
     ("Multiple Models with FastAPI", "Inheritance and Table Models"), "Only Inherit from Data Models"),
    ("what does back_populates do on a relationship attribute", "back-populates.md",
     ("Relationship back_populates",), "Relationship with back_populates"),
)


@pytest.mark.parametrize(("query", "page", "lead_in", "subsection"), LEAD_IN_CASES)
def test_a_lead_in_yields_the_citation_to_the_subsection_that_answers(shelf, query, page, lead_in, subsection):
    """Without ``fuse.subsection_after_lead_in`` the top hit cited the text that introduces a
    section's subsections (or the page); with it, the subsection right after, which answers."""
    from docshelf.search.engine import Searcher

    searcher = shelf.searcher
    off = replace(searcher.options, fusion=replace(searcher.options.fusion, subsection_band=0.0))
    without = Searcher(searcher.store, searcher.embedder, off)
    top = searcher.search(query, max_per_doc=1).hits[0]
    before = without.search(query, max_per_doc=1).hits[0]
    assert (before.path, before.heading_path) == (page, lead_in), before.heading_path
    assert (top.path, top.heading_path) == (page, (*lead_in, subsection)), top.heading_path
    assert top.score > 0 and top.start_line > before.start_line


RECAP_PAGE = """# Update Data with the API

Here we add a path operation to update a hero, sending only the fields that change.

## Read the Existing Hero

We read the hero with the id from the path. If there is no such row we raise an
`HTTPException` with status 404, so the client knows the hero does not exist.

## Get the New Data

The update model has a default value for every field, so `hero.model_dump()` would return
every field, also the ones the client never sent, with their defaults, and we would overwrite
the stored values with `None`. To get only the values the client actually sent, call
`hero.model_dump(exclude_unset=True)`: fields left unset are not in the dictionary.

```python
hero_data = hero.model_dump(exclude_unset=True)
db_hero.sqlmodel_update(hero_data)
```

## Update the Hero in the Database

With that dictionary we update the stored object, add it to the session, commit and refresh it.

## Recap

Using `.model_dump(exclude_unset=True)` we can update data correctly, even in the edge cases.
"""


def test_a_pages_recap_is_cited_after_the_section_it_sums_up(tmp_path):
    """A one-line ``Recap`` that repeats the pasted identifier took the citation from the
    section that explains it (set F, FastAPI-style tutorial pages); ``summary_penalty`` gives
    it back, and the page keeps its score either way."""
    from docshelf.config import Settings
    from docshelf.search.engine import Searcher
    from docshelf.service import Docshelf

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "update.md").write_text(RECAP_PAGE, encoding="utf-8")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index"))
    assert shelf.index([docs]).failed == {}
    searcher = shelf.searcher
    off = replace(searcher.options, fusion=replace(searcher.options.fusion, summary_penalty=0.0))
    without = Searcher(searcher.store, searcher.embedder, off)
    query = "model_dump exclude_unset"
    top = searcher.search(query).hits[0]
    before = without.search(query).hits[0]
    assert before.heading_path[-1] == "Recap", before.heading_path
    assert top.heading_path[-1] == "Get the New Data", top.heading_path


NAMED_PAGES = ("nesting.rst", "extending/schema_validation.rst", "extending/custom_options.rst",
               "extending/pre_and_post_processing.rst", "quickstart.rst")
NAMED_CASES = (
    # (query, page, band switched off, heading cited without the rule, heading cited with it): set E
    ("ValidationError: field_a must be greater than field_b", "schema_validation.rst", "cite_band",
     ("Schema-level validation", "Storing errors on specific fields"), ("Schema-level validation",)),
    ("nestd schemas", "nesting.rst", "intro_band",
     ("Nesting schemas", "Nesting a schema within itself"), ("Nesting schemas",)),
    ("SchemaOpts", "custom_options.rst", "cite_band",
     ("Custom class Meta options", "Example: Enveloping, revisited"), ("Custom class Meta options",)),
)


@pytest.fixture(scope="module")
def marshmallow(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    docs = tmp_path_factory.mktemp("marshmallow")
    for page in NAMED_PAGES:
        shutil.copyfile(DOCSETS / "marshmallow" / "docs" / page, docs / Path(page).name)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([docs]).failed == {}
    return shelf


@pytest.mark.parametrize(("query", "page", "band", "without_rule", "with_rule"), NAMED_CASES)
def test_the_query_s_own_wording_names_the_section_cited(marshmallow, query, page, band, without_rule, with_rule):
    """``citing.py``: a pasted message is cited where it is printed verbatim, a query naming a
    page's title at the page's introduction, a bare name where the prose mentions it; without
    the rule each cited a neighbouring section of the same page (the page ranks first either way)."""
    from docshelf.search.engine import Searcher

    searcher = marshmallow.searcher
    off = replace(searcher.options, fusion=replace(searcher.options.fusion, **{band: 0.0}))
    without = Searcher(searcher.store, searcher.embedder, off)
    top = searcher.search(query, max_per_doc=1).hits[0]
    before = without.search(query, max_per_doc=1).hits[0]
    assert (before.path, before.heading_path) == (page, without_rule), before.heading_path
    assert (top.path, top.heading_path) == (page, with_rule), top.heading_path


DRF_PAGES = ("api-guide/versioning/index.html", "api-guide/filtering/index.html")  # set I: a built MkDocs site
NAMED_LEAD_IN_CASES = (
    ("AcceptHeaderVersioning", "api-guide/versioning/index.html", ("API Reference", "AcceptHeaderVersioning"),
     "Using accept headers with vendor media types"),
    ("OrderingFilter", "api-guide/filtering/index.html", ("API Guide", "OrderingFilter"),
     "Specifying which fields may be ordered against"),
)


@pytest.fixture(scope="module")
def drf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    docs = tmp_path_factory.mktemp("drf")
    for page in DRF_PAGES:
        (docs / page).parent.mkdir(parents=True)
        shutil.copyfile(DOCSETS / "drf" / "docs" / page, docs / page)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([docs]).failed == {}
    return shelf


@pytest.mark.parametrize(("query", "page", "lead_in", "subsection"), NAMED_LEAD_IN_CASES)
def test_a_lead_in_the_query_names_keeps_the_citation(drf, query, page, lead_in, subsection):
    """A class's section is a lead-in to its first subsection; a query that names the class
    is answered by the class's section. Without ``named_lead_in`` the subsection took it."""
    from docshelf.search.engine import Searcher

    searcher = drf.searcher
    off = replace(searcher.options, fusion=replace(searcher.options.fusion, named_lead_in=False))
    without = Searcher(searcher.store, searcher.embedder, off)
    top = searcher.search(query, max_per_doc=1).hits[0]
    before = without.search(query, max_per_doc=1).hits[0]
    assert (before.path, before.heading_path) == (page, (*lead_in, subsection)), before.heading_path
    assert (top.path, top.heading_path) == (page, lead_in), top.heading_path


HATCH_PAGES = ("install.md", "config/dependency.md", "tutorials/python/manage.md")  # set J: MkDocs Material source
MATCHED_WORD_CASES = (
    # a typo'd question naming the tool: "pip" (its own section mentions pipx) is not "pipx"
    ("instal hatch with pipx", "install.md", ("Installation", "pipx")),
    # "3.12" is a version in a sentence, not a pasted message: the verbatim-run rule stays out
    ("how do I install a Python 3.12 distribution with hatch and put it on my PATH", "manage.md",
     ("Managing Python distributions", "Installation")),
)


@pytest.fixture(scope="module")
def hatch(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    docs = tmp_path_factory.mktemp("hatch")
    for page in HATCH_PAGES:
        shutil.copyfile(DOCSETS / "hatch" / "docs" / page, docs / Path(page).name)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([docs]).failed == {}
    return shelf


@pytest.mark.parametrize(("query", "page", "section"), MATCHED_WORD_CASES)
def test_the_section_a_question_names_by_its_words_as_read(hatch, query, page, section):
    """Which words the question and a heading share, read as the keyword side reads them
    (``fuse.names_word``; ``phrase.looks_pasted``): before, the top hit cited the neighbouring
    section ("pip", "Listing distributions")."""
    top = hatch.searcher.search(query, max_per_doc=1).hits[0]
    assert (top.path, top.heading_path) == (page, section), top.heading_path
