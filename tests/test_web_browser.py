"""The browser pages in a real headless browser (Chromium with Selenium): the play page of
``saboteur serve`` (clicking a card of the hand, then a legal cell, lays the card in the maze)
and the self-contained replay page (opened from disk, stepping forward and back).

Skipped, with the reason, when Selenium, Flask, Chromium or chromedriver is missing (``.ci/run``
installs Debian's ``chromium`` and ``chromium-driver`` where it may).  With
``SABOTEUR_SCREENSHOTS=folder`` the pages' screenshots are saved there (docs/web.md's images).
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="saboteur serve needs flask (the 'serve' extra)")
pytest.importorskip("selenium", reason="the browser test needs selenium (the 'dev' extra)")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER),
    reason="no headless browser: apt-get install chromium chromium-driver (Debian)",
)
SHOTS = os.environ.get("SABOTEUR_SCREENSHOTS")


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,900"):
        opts.add_argument(arg)
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    except Exception as err:  # a browser that does not start here: say why
        pytest.skip(f"chromium does not start: {err}")
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def served(tmp_path):
    from werkzeug.serving import make_server

    from saboteur_experiments.web.server import Server, create_app

    server = Server(["heuristic"], players=4, humans=[0], seed=2, records=tmp_path / "human")
    httpd = make_server("127.0.0.1", 0, create_app(server), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/", server
    httpd.shutdown()
    thread.join(5)


def _wait(driver, css, timeout=15):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, css))
    )


def test_clicking_a_legal_placement_changes_the_maze(browser, served):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, server = served
    browser.get(url)
    _wait(browser, "#hand .card.playable")
    (table,) = server.tables.values()
    assert table.game.current == 0 and table.game.decisions == 0
    # choose a card of the hand that can be laid in the maze: its legal cells light up
    legal = []
    for card in browser.find_elements(By.CSS_SELECTOR, "#hand .card.playable"):
        kind = card.get_attribute("data-kind")
        browser.find_element(By.CSS_SELECTOR, f'#hand .card.playable[data-kind="{kind}"]').click()
        legal = browser.find_elements(By.CSS_SELECTOR, "#maze .cell.legal")
        if legal:
            break
    assert legal, "no card of the hand has a legal placement"
    x, y = legal[0].get_attribute("data-x"), legal[0].get_attribute("data-y")
    cell = f'#maze .cell[data-x="{x}"][data-y="{y}"]'
    assert not browser.find_elements(By.CSS_SELECTOR, cell + " svg")  # empty before
    if SHOTS:
        browser.save_screenshot(str(Path(SHOTS) / "web_play_raw.png"))
    legal[0].click()
    WebDriverWait(browser, 15).until(
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, cell + " svg")
            and "You: place" in d.find_element(By.ID, "history").text
        )
    )
    assert browser.find_element(By.ID, "error").text == ""
    # the server took the move and the agents played until seat 0's next turn
    assert table.game.decisions >= 4 and table.game.current == 0
    assert table.game.board.variant_at(int(x), int(y)) >= 0


def test_the_next_round_shows_the_last_rounds_final_maze(browser, served):
    from selenium.webdriver.common.by import By

    from saboteur_env.encoding.codec import legal_indices

    url, server = served
    browser.get(url)
    _wait(browser, "#hand .card")
    assert browser.find_element(By.ID, "last").text == ""  # no round has ended yet
    token = browser.execute_script("return sessionStorage.getItem('saboteur-token')")
    (table,) = server.tables.values()
    g = table.game
    while not g.round_results:  # seat 0's first legal move, the agents in between
        server.move(token, {"action": int(legal_indices(server.codec.mask(g, 0))[0])})
    browser.refresh()  # the tab keeps its seat
    head = _wait(browser, "#last h2")
    assert head.text == "Round 1's final maze"
    shown = server.payload(table, 0)["last_round"]
    cards = sum(1 for c in shown["maze"]["cells"] if c.get("card"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#last-maze .cell svg")) == cards > 3
    assert browser.find_element(By.ID, "last-result").text == shown["result"].strip()


def test_the_self_contained_replay_page_opens_from_disk_and_steps(browser, tmp_path):
    from selenium.webdriver.common.by import By

    from saboteur_agents import make_agent
    from saboteur_experiments.play import play_game
    from saboteur_experiments.web.replay_html import write_html

    rec = tmp_path / "game.jsonl"
    play_game(
        [make_agent(s) for s in ("heuristic", "random", "heuristic")],
        7,
        record=str(rec),
        num_rounds=1,
    )
    page = tmp_path / "replay.html"
    write_html(rec, 0, page)
    browser.get(page.as_uri())
    _wait(browser, "#maze .maze")
    step = browser.find_element(By.ID, "step")
    total = int(step.text.split("/")[1])
    assert step.text == f"state 0/{total}" and total > 5
    assert browser.find_element(By.ID, "caption").text == "the deal"
    cards0 = len(browser.find_elements(By.CSS_SELECTOR, "#maze svg"))
    browser.find_element(By.ID, "next").click()
    assert step.text == f"state 1/{total}"
    assert browser.find_element(By.ID, "caption").text.startswith("decision 1: ")
    browser.find_element(By.ID, "prev").click()
    assert step.text == f"state 0/{total}"
    browser.find_element(By.ID, "last").click()
    assert step.text == f"state {total}/{total}"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#maze svg")) > cards0
    # seat 0 is the heuristic: its belief is drawn beside the maze
    assert "seat 0's agent belief" in browser.find_element(By.ID, "belief").text
    if SHOTS:
        browser.find_element(By.ID, "first").click()
        for _ in range(min(total, 12)):
            browser.find_element(By.ID, "next").click()
        browser.save_screenshot(str(Path(SHOTS) / "web_replay_raw.png"))
