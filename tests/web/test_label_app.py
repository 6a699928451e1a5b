"""The annotation app in a real headless Chromium (Debian's; no browser download)."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentprop.store import Workspace
from tests.judges.conftest import CALENDAR, MEDICAL, RETAIL, WEATHER, make_trace

XSS = "<script>alert(1)</script>"


@pytest.fixture
def served(tmp_path: Path, label_app: Any) -> Iterator[tuple[str, Path]]:
    ws = Workspace(tmp_path / "w")
    traces = [
        make_trace("tr-a", WEATHER, "Tomorrow in London: 14°C, light rain.",
                   observations=[{"city": "London", "temp_c": 14}]),
        make_trace("tr-b", MEDICAL, "Severity high."),
        make_trace("tr-c", RETAIL, "$74.97"),
        make_trace("tr-d", CALENDAR, XSS),
        make_trace("tr-e", WEATHER, "No idea."),
    ]
    ws.put_traces(traces)
    ws.put_label_sample([{"trace_id": t.id, "position": i, "stratum": "s"}
                         for i, t in enumerate(traces)])
    ws.close()
    with label_app(tmp_path / "w") as url:
        yield url, tmp_path / "w"


def test_server_binds_loopback_and_refuses_cross_site(served: tuple[str, Path]) -> None:
    url, wsp = served
    assert url.startswith("http://127.0.0.1:")
    req = urllib.request.Request(url + "/label", data=b"annotator=x&trace=tr-a&label=correct",
                                 headers={"Origin": "http://evil.example"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 403
    assert Workspace(wsp).labels() == []
    with urllib.request.urlopen(url + "/label?annotator=x&trace=tr-d", timeout=10) as r:
        page = r.read().decode()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and XSS not in page
        assert "script-src 'nonce-" in r.headers["Content-Security-Policy"]


@pytest.mark.parametrize("headers", [
    {"Origin": "null"},  # a sandboxed iframe or data: page anywhere sends Origin: null
    {"Sec-Fetch-Site": "cross-site"},  # a cross-site form post from a browser
    {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
])
def test_post_from_an_opaque_or_cross_site_origin_is_refused(
    served: tuple[str, Path], headers: dict[str, str]
) -> None:
    url, wsp = served
    req = urllib.request.Request(url + "/label", data=b"annotator=x&trace=tr-a&label=correct",
                                 headers=headers, method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 403
    assert Workspace(wsp).labels() == []


@pytest.mark.browser
def test_label_three_resume_and_escape(served: tuple[str, Path],
                                       chromium: tuple[str, list[str]]) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, wsp = served
    dialogs: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium[0], args=chromium[1],
                                    headless=True)
        try:
            page = browser.new_page()
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(url + "/")
            page.fill("#annotator", "Ada <b>")
            page.click("#start")
            expect(page.locator("#progress")).to_have_text("1 / 5")
            expect(page.locator("#who")).to_have_text("Ada <b>")
            expect(page.locator("#question")).to_have_text(WEATHER.query)
            expect(page.locator("#reference")).to_have_text(WEATHER.reference_answer)
            # observations are behind a toggle (t), verdicts are nowhere
            expect(page.locator("#obs pre")).to_be_hidden()
            page.keyboard.press("t")
            expect(page.locator("#obs pre")).to_be_visible()
            assert "verdict" not in page.content().lower()
            page.click("#btn-correct")  # 1: click
            expect(page.locator("#progress")).to_have_text("2 / 5")
            page.fill("#note", "bleeding risk stated")
            page.locator("body").click()
            page.keyboard.press("i")  # 2: key
            expect(page.locator("#progress")).to_have_text("3 / 5")
            page.keyboard.press("u")  # 3: key
            expect(page.locator("#progress")).to_have_text("4 / 5")
            # the answer with a script tag is literal text; nothing ran
            expect(page.locator("#answer")).to_have_text(XSS)
            # back with b / ←, forward with n
            page.keyboard.press("b")
            expect(page.locator("#progress")).to_have_text("3 / 5")
            expect(page.locator("#current")).to_have_text("unsure")
            page.keyboard.press("n")
            expect(page.locator("#progress")).to_have_text("4 / 5")
            # reload, and start again from the name page: both resume at the fourth
            page.reload()
            expect(page.locator("#progress")).to_have_text("4 / 5")
            page.goto(url + "/")
            page.fill("#annotator", "Ada <b>")
            page.click("#start")
            expect(page.locator("#progress")).to_have_text("4 / 5")
            expect(page.locator("#answer")).to_have_text(XSS)
            page.click("#btn-incorrect")
            expect(page.locator("#progress")).to_have_text("5 / 5")
            page.keyboard.press("c")
            expect(page.locator("#done")).to_have_text("Done")
        finally:
            browser.close()
    assert dialogs == []
    labels = {x.trace_id: (x.label, x.note) for x in Workspace(wsp).labels("Ada <b>")}
    assert labels == {"tr-a": ("correct", ""), "tr-b": ("incorrect", "bleeding risk stated"),
                      "tr-c": ("unsure", ""), "tr-d": ("incorrect", ""),
                      "tr-e": ("correct", "")}


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        return str(r.read().decode())


def test_item_layout_question_reference_answer_then_decision(served: tuple[str, Path]) -> None:
    url, _ = served
    page = _get(url + "/label?annotator=x&trace=tr-a")
    # three visually distinct boxes, in reading order, then the buttons, then observations
    at = [page.index(s) for s in ('class="box q"', 'class="box ref"', 'class="box ans"',
                                  'id="btn-correct"', 'id="obs"')]
    assert at == sorted(at)
    assert "<kbd>c</kbd>" in page and "<kbd>t</kbd>" in page  # shortcut hints on the page
    assert '<progress max="5" value="0">' in page


def test_empty_queue_says_nothing_to_label(served: tuple[str, Path]) -> None:
    url, wsp = served
    ws = Workspace(wsp)
    ws.put_label_sample([{"trace_id": "tr-a", "position": 0, "stratum": "s",
                          "annotators": "someone-else"}])
    ws.close()
    page = _get(url + "/done?annotator=x")
    assert "Nothing to label" in page and ">Done<" not in page


@pytest.mark.browser
def test_buttons_stay_on_screen_with_observations_open(served: tuple[str, Path],
                                                       chromium: tuple[str, list[str]]) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, _ = served
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium[0], args=chromium[1],
                                    headless=True)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 480})
            page.goto(url + "/label?annotator=x&trace=tr-a")
            page.keyboard.press("t")
            expect(page.locator("#obs pre")).to_be_visible()
            expect(page.locator("#btn-correct")).to_be_in_viewport()
        finally:
            browser.close()
