"""A passage that reads as a list of short unrelated items (a plugin list, a changelog) is
credited only with the query words one run of its items holds together (``search/items.py``)."""

from __future__ import annotations

from docshelf.search.calibrate import item_coverage
from docshelf.search.items import ListParams, items, list_windows

PARAMS = ListParams()

# pytest's plugin list as docshelf indexes it: a name, a release paragraph, a one-line description.
PLUGINS = "\n\n".join(
    f"pytest-{name}\n*last release*: Jun 26, 2024,\n*status*: N/A,\n*requires*: pytest\n\n{line}"
    for name, line in [
        ("appengine", "AppEngine integration that works well with pytest-django"),
        ("argus", "Helm charts deployed to a kubernetes cluster in tests"),
        ("asyncio-cooperative", "Run all your asynchronous tests cooperatively"),
        ("aws-apigateway", "pytest plugin for AWS ApiGateway lambda handler"),
        ("axe", "pytest plugin for axe-selenium-python"),
        ("bdd", "BDD for pytest"),
    ]
)
# The same list as a plain-text table (reST simple table rows, columns apart by runs of spaces).
TABLE = "\n".join(
    f"pytest-{name}{' ' * 20}{line}    Jun 26, 2024    N/A    pytest"
    for name, line in [("appengine", "AppEngine integration with pytest-django"),
                       ("argus", "Helm charts deployed to a kubernetes cluster"), ("asyncio", "Run async tests"),
                       ("aws", "AWS ApiGateway handler"), ("axe", "axe-selenium-python"), ("bdd", "BDD for pytest")]
)
PROSE = ("To deploy a Django app on Kubernetes, build an image of the app, push it to a registry and "
         "describe the deployment in a manifest; the cluster then starts the app's containers and keeps "
         "them running, replacing any that fail.\n\nEach release rolls out a new image tag in the same way.")
CODE = "```python\nimport django\n\n\ndef deploy():\n    pass\n\n\ndef kubernetes():\n    pass\n```"


def test_lists_and_tables_split_into_items_and_prose_and_code_are_read_whole():
    assert len(items(PLUGINS)) == 12 and list_windows(PLUGINS, PARAMS) is not None
    assert len(items(TABLE)) == 6 and list_windows(TABLE, PARAMS) is not None
    bullets = "\n".join(f"- item {i} about something" for i in range(8))
    assert items(bullets)[0] == "- item 0 about something" and list_windows(bullets, PARAMS) is not None
    assert list_windows(PROSE, PARAMS) is None
    assert list_windows(CODE, PARAMS) is None  # code with blank lines is no list
    assert list_windows(PLUGINS, ListParams(enabled=False)) is None


def test_words_spread_over_items_about_other_things_are_not_credited_together():
    question = "deploy my django app to kubernetes"
    whole, credited = item_coverage(question, "Pytest Plugin List", PLUGINS, PARAMS)
    assert whole == 1.0 and credited == 0.5  # one item: 'deployed' and 'kubernetes'; django and app elsewhere
    whole, credited = item_coverage(question, "Pytest Plugin List", TABLE, PARAMS)
    assert (whole, credited) == (1.0, 0.5)
    assert item_coverage(question, "Deploying", PROSE, PARAMS) == (1.0, 1.0)  # prose: read whole
    # The headings count for every item.
    assert item_coverage("kubernetes plugin list", "Pytest Plugin List", PLUGINS, PARAMS) == (1.0, 1.0)
