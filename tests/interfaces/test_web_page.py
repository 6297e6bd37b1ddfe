"""The web page in headless Chromium (Debian's chromium + chromium-driver), real model, real server.

Search with the keyboard, apply a collection filter, open a result and check that the
document view shows the cited passage, scrolled into view and marked. With
``DOCSHELF_UPDATE_SCREENSHOT=1`` the results page is saved as ``docs/web-search.png``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest
from api_harness import INGEST_TOKEN, api_server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "web-search.png"

GUIDES = {
    "guides/tokens.md": (
        "# Access tokens\n\nThe server reads its bearer token from DOCSHELF_TOKEN.\n\n"
        "## Rotating a token\n\nTo rotate the token, set a new value, restart the server, then update every client. "
        "Old tokens stop working at once.\n"
    ),
    "guides/install.md": "# Installing\n\nInstall docshelf with pip and run docshelf index on your folder.\n",
}
PUSHED = [
    {"id": "hd-17#0", "content": "How do I rotate my API token? Open Settings, choose Tokens, press Rotate. "
                                 "The old token keeps working for 24 hours so clients can switch.",
     "metadata": {"source": "https://help.example.com/articles/17", "title": "Rotating API tokens",
                  "heading_path": ["Account", "Security"], "collection": "helpdesk", "doc_type": "faq",
                  "date": "2024-06-02"}},
    {"id": "hd-18#0", "content": "Billing happens monthly; invoices are emailed to the account owner.",
     "metadata": {"source": "https://help.example.com/articles/18", "title": "Invoices", "collection": "helpdesk",
                  "doc_type": "faq"}},
]


@pytest.fixture
def browser():
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.fail("headless Chromium is needed: apt-get install -y chromium chromium-driver (.ci/run does it)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1100,900",
                 "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def test_search_filter_open_and_see_the_cited_text(tmp_path, browser):
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def navigates(action) -> None:
        """Run ``action`` and wait until the old page is gone (no stale elements after it)."""
        old = browser.find_element(By.TAG_NAME, "html")
        action()

        def gone(_driver) -> bool:
            try:
                return EC.staleness_of(old)(_driver)
            except WebDriverException as exc:  # asked mid-navigation, Chrome says so in its own words
                if "does not belong to the document" in str(exc):
                    return True
                raise

        WebDriverWait(browser, 30).until(gone)

    docs = tmp_path / "docs"
    for rel, text in GUIDES.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text)
    env = {"DOCSHELF_MODEL": "all-MiniLM-L6-v2"}
    with api_server(tmp_path, "--ingest-token", INGEST_TOKEN, docs=docs, documents=2, env=env) as base:
        r = httpx.post(f"{base}/ingest/upsert", json={"records": PUSHED},
                       headers={"Authorization": f"Bearer {INGEST_TOKEN}"}, timeout=60)
        assert r.status_code == 200, r.text

        browser.get(base + "/")
        box = browser.find_element(By.NAME, "q")
        assert box == browser.switch_to.active_element  # the search box has the focus: type at once
        navigates(lambda: box.send_keys("how do I rotate a token", Keys.ENTER))
        titles = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "ol.hits .hit-title")]
        assert "Rotating API tokens" in titles and "Access tokens" in titles
        # how sure the search is, as the API and the MCP tool say it, and each hit's score
        assert "confidence high" in browser.find_element(By.CSS_SELECTOR, "main > p.cite").text
        assert all(" · score 0." in e.text or " · score 1." in e.text
                   for e in browser.find_elements(By.CSS_SELECTOR, "ol.hits .cite"))
        results = browser.current_url
        browser.get(base + "/?q=xyzzy+plugh")  # nothing in the documents is about this
        assert "the documentation may not cover this" in browser.find_element(By.CSS_SELECTOR, "p.confidence").text
        browser.get(results)
        strip = browser.find_element(By.CSS_SELECTOR, "nav.strip").text
        assert "4 documents" in strip and "0 failed" in strip

        Select(browser.find_element(By.NAME, "collection")).select_by_value("helpdesk")
        navigates(browser.find_element(By.CSS_SELECTOR, "form.search button").click)
        cites = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "ol.hits .cite")]
        assert cites and all("helpdesk" in c for c in cites)
        first = browser.find_element(By.CSS_SELECTOR, "ol.hits li")
        assert first.find_element(By.CSS_SELECTOR, ".hit-title").text == "Rotating API tokens"
        assert "rotate" in [m.text.lower() for m in first.find_elements(By.TAG_NAME, "mark")]
        assert "https://help.example.com/articles/17 › Account › Security" in first.text
        browser.save_screenshot(str(SCREENSHOT if os.environ.get("DOCSHELF_UPDATE_SCREENSHOT") else tmp_path / "s.png"))

        navigates(first.find_element(By.CSS_SELECTOR, ".hit-title").click)
        cited = browser.find_element(By.ID, "cited")
        assert "press Rotate" in cited.text
        assert [m.text for m in cited.find_elements(By.TAG_NAME, "mark")][:1] == ["rotate"]
        top = browser.execute_script("return document.getElementById('cited').getBoundingClientRect().top")
        assert 0 <= top < browser.execute_script("return window.innerHeight")
        assert browser.find_element(By.TAG_NAME, "h1").text == "Rotating API tokens"
