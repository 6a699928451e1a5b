"""The annotation web app: stdlib HTTP server, one Workspace connection per request.

Safety (SECURITY.md): binds 127.0.0.1 unless told otherwise; a request whose Host is not
a name the server was bound to gets 421 (`agentprop.safety.host_allowed`: DNS
rebinding); every piece of task and model text goes through `html.escape` (no text is
ever inserted by script); a Content-Security-Policy with a per-response nonce allows only
our own inline script and style; writes are POST only and a POST whose Origin is another
site or opaque ("null"), or whose Sec-Fetch-Site is not same-origin, is refused; a body
that is not a small UTF-8 form is 400; annotator names with control characters are
refused. Connections are bounded (503 beyond `max_connections`) and a client gets
`header_timeout_s` for its headers and `body_timeout_s` for its body. Judge verdicts are
never shown. Labelling is blind by default: nothing tells the condition or the corruption
(proposed arguments, injections, condition names, the interceptor's reason) unless the
annotator asks for the full view (`view=full`), and each label records its view.
Routes: GET / (name), GET /label?annotator=&trace= (one item; without trace: resume at the
first unlabelled item), POST /label (save, go to the next unlabelled), GET /done. With a
recorded label plan (`label sample --for`/`--half-width`) the header and the done page show
the labels made against its targets, per cell.
"""

from __future__ import annotations

import contextlib
import html
import json
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qs, urlencode, urlsplit

from agentprop.core import (
    InjectionEvent,
    Label,
    LabelView,
    Message,
    Task,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)
from agentprop.labels._plan import Progress, plan_progress
from agentprop.labels._sample import annotator_queue
from agentprop.safety import MISDIRECTED, cross_site_refusal, has_control_chars, host_allowed
from agentprop.store import Workspace

if TYPE_CHECKING:
    from agentprop.suite import Suite

MAX_NAME = 64
MAX_NOTE = 4000
MAX_BODY = 64_000
LABELS = ("correct", "incorrect", "unsure")


class BadRequest(Exception):
    """A request the app answers with 400; the message is shown to the client."""


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _url(path: str, **params: str) -> str:
    return path + ("?" + urlencode(params) if params else "")


_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto 2rem;padding:0 1rem;
color:#222;line-height:1.45}
header{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center;padding:.7rem 0;
border-bottom:1px solid #ddd;margin-bottom:1rem}
header .title{font-weight:600}header .grow{flex:1}
progress{width:10rem;height:.7rem;vertical-align:middle}
.progress{font-weight:bold;display:inline}
h1{font-size:1.6rem;margin:1.2rem 0 .6rem}
h2{font-size:.8rem;margin:0 0 .25rem;color:#555;text-transform:uppercase;
letter-spacing:.04em}
.box{border:1px solid #ddd;border-left-width:5px;border-radius:4px;padding:.6rem .8rem;
margin:0 0 1rem}
.box pre{white-space:pre-wrap;word-break:break-word;margin:0;font:inherit}
.q{border-left-color:#888;background:#fafafa}.q pre{font-size:1.15rem;font-weight:500}
.ref{border-left-color:#2a8a3e;background:#f1f9f2}
.ans{border-left-color:#2b62c4;background:#f0f5fd}
details{margin:0 0 1rem;border:1px solid #e3e3e3;border-radius:4px;padding:.4rem .8rem}
details summary{cursor:pointer;color:#444}
details h3{font-size:.9rem;margin:.6rem 0 .2rem;font-family:monospace;word-break:break-all}
details pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.5rem;
border-radius:4px;margin:0 0 .6rem;font-size:.85rem}
.decide{border:1px solid #ccc;border-radius:6px;padding:.7rem .8rem;margin:0 0 1rem;
background:#fcfcfc}
.bar{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin:.2rem 0 .6rem}
button{font-size:1.05rem;padding:.5rem 1.1rem;cursor:pointer;border-radius:5px;
border:1px solid #999;background:#fff}
#btn-correct{border-color:#2a8a3e;color:#1d6b2f}
#btn-incorrect{border-color:#b3261e;color:#8f1d17}
#btn-unsure{border-color:#777;color:#444}
button:hover{background:#f2f2f2}
button.current{outline:3px solid #2a6;outline-offset:1px;font-weight:bold}
kbd{font-family:monospace;font-size:.8em;border:1px solid #bbb;border-bottom-width:2px;
border-radius:3px;padding:0 .3em;background:#f7f7f7;color:#333}
.nav{display:flex;gap:1.5rem;align-items:center;margin:.4rem 0}
.muted{color:#666}h2 .muted{text-transform:none;letter-spacing:0;font-size:.9rem}
label.note{display:block;font-size:.85rem;color:#555;margin-top:.3rem}
textarea{width:100%;box-sizing:border-box;min-height:2.6rem;font:inherit;margin-top:.2rem}
input#annotator{font-size:1.05rem;padding:.45rem .6rem;width:16rem}
.card{border:1px solid #ddd;border-radius:6px;padding:1rem 1.2rem;margin:1rem 0}
.card>p:first-child{margin-top:0}
.counts{display:flex;gap:1.5rem;margin:.6rem 0}.counts b{font-size:1.4rem;display:block}
#plan-cells{border-collapse:collapse;margin:.3rem 0 .8rem}
#plan-cells td,#plan-cells th{padding:.1rem .7rem;text-align:left;border-bottom:1px solid #eee}
.view{font-size:.85rem}p.inj{font-family:monospace;font-size:.85rem;background:#fff3e0;
padding:.3rem .5rem;border-radius:4px;margin:.4rem 0}
"""

_SCRIPT = """
document.addEventListener('keydown', function (e) {
  var t = e.target;
  if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT')) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  var buttons = {c: 'btn-correct', i: 'btn-incorrect', u: 'btn-unsure'};
  var go = function (id) {
    var a = document.getElementById(id);
    if (a && a.getAttribute('href')) { window.location.href = a.getAttribute('href'); }
  };
  if (buttons[e.key]) { e.preventDefault(); document.getElementById(buttons[e.key]).click(); }
  else if (e.key === 'n' || e.key === 'ArrowRight') { e.preventDefault(); go('next'); }
  else if (e.key === 'b' || e.key === 'ArrowLeft') { e.preventDefault(); go('back'); }
  else if (e.key === 't') {
    var d = document.getElementById('obs'); if (d) { d.open = !d.open; }
  }
});
"""


def _page(title: str, body: str, nonce: str, *, script: bool = False) -> str:
    js = f'<script nonce="{nonce}">{_SCRIPT}</script>' if script else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style nonce=\"{nonce}\">{_STYLE}</style></head>"
        f"<body>{body}{js}</body></html>"
    )


def _question_reference(trace: Trace, task: Task | None) -> tuple[str, str]:
    if task is not None:
        return task.query, task.reference_answer
    question = str(trace.meta.get("query") or next(
        (m.content for m in trace.messages if isinstance(m, Message) and m.role == "user"
         and m.content), "(question not available)"))
    return question, str(trace.meta.get("reference_answer") or "(reference not available)")


def _observations_html(trace: Trace, full: bool = False) -> str:
    """The tool calls as executed and what they returned. Blind (the default) shows what
    the agent saw and nothing of how it came about; `full` adds the arguments the agent
    had proposed where they differ, and the injections recorded in the trace."""
    calls = {ev.call.id: ev.call for ev in trace.events if isinstance(ev, ToolCallEvent)}
    parts = []
    if full:
        for inj in trace.events:
            if isinstance(inj, InjectionEvent):
                what = f"{trace.condition}: {inj.error_type} ({inj.status})"
                if inj.tool:
                    what += f" on {inj.tool}" + (f".{inj.param}" if inj.param else "")
                if inj.original is not None or inj.injected is not None:
                    what += (f": {json.dumps(inj.original, ensure_ascii=False)} → "
                             f"{json.dumps(inj.injected, ensure_ascii=False)}")
                parts.append(f'<p class="inj">injected {esc(what)}</p>')
    for ev in trace.events:
        if isinstance(ev, ToolResultEvent):
            proposed = calls.get(ev.call_id)
            args = json.dumps(ev.arguments, ensure_ascii=False)
            head = f"{ev.name}({args})"
            if full and proposed is not None and proposed.arguments != ev.arguments:
                head += "  [proposed: " + json.dumps(proposed.arguments, ensure_ascii=False) + "]"
            obs = json.dumps(ev.observation, indent=2, ensure_ascii=False)
            parts.append(f"<h3>{esc(head)}</h3><pre>{esc(obs)}</pre>")
    if not any(p.startswith("<h3>") for p in parts):
        parts.append('<p class="muted">No tool calls.</p>')
    return "".join(parts)


def _answer_text(trace: Trace, full: bool = False) -> str:
    """The final answer; an abstention's reason (the interceptor's layers: it tells the
    arm) only in the full view."""
    fin = trace.final
    if fin is None:
        return "(no final answer: " + trace.status + ")"
    if fin.abstained:
        why = f": {fin.reason}" if fin.reason and full else ""
        return f"(the agent abstained{why})" + (f"\n{fin.answer}" if fin.answer else "")
    return fin.answer if fin.answer is not None else "(empty answer)"


def _plan_badge(progress: Progress | None) -> str:
    """The header's progress against the label plan (every annotator's labels)."""
    if progress is None or not progress.target:
        return ""
    what = f"plan for {progress.rate}" if progress.rate else "plan"
    return (f'<span class="muted" id="plan">{esc(what)}: '
            f'<progress max="{progress.target}" value="{progress.labelled}"></progress> '
            f"{progress.labelled} of {progress.target} labels</span>")


def _plan_table(progress: Progress | None) -> str:
    """Per cell of the label plan: labels made (by anyone) against its target."""
    if progress is None or not progress.cells:
        return ""
    rows = "".join(f"<tr><td>{esc(cell)}</td><td>{done}</td><td>{target}</td></tr>"
                   for cell, done, target in progress.cells)
    other = ("" if progress.question == "answer" else
             f'<p class="muted">This sample is for <b>{esc(progress.question)}</b> labels: '
             "make them outside this app and import them with <code>agentprop label import "
             f"--question {esc(progress.question)}</code>.</p>")
    return ('<h2>Against the plan</h2><table id="plan-cells"><tr><th>cell</th>'
            f"<th>labelled</th><th>target</th></tr>{rows}</table>{other}")
def _view(q: dict[str, str]) -> LabelView:
    """The view a request asks for: `full` only when the annotator chose it."""
    return "full" if q.get("view") == "full" else "blind"


class _State:
    """What one request needs to know about an annotator's progress."""

    def __init__(self, ws: Workspace, annotator: str) -> None:
        self.sample = ws.label_sample()
        mine: dict[str, Label] = {}
        others: set[str] = set()
        for lab in ws.labels():
            if lab.annotator == annotator:
                mine[lab.trace_id] = lab
            else:
                others.add(lab.trace_id)
        self.mine = mine
        self.queue = annotator_queue(self.sample, annotator, others, set(mine))
        self.progress = plan_progress(ws)

    def next_unlabelled(self, after: str | None = None) -> str | None:
        start = self.queue.index(after) + 1 if after in self.queue else 0
        order = self.queue[start:] + self.queue[:start]
        return next((t for t in order if t not in self.mine), None)


@dataclass(frozen=True)
class _HandlerContext:
    """What a handler class serves: the workspace, the tasks' lookup, and whether it logs."""

    workspace_path: Path
    get_task: Callable[[str], Task | None]
    quiet: bool


class _Handler(BaseHTTPRequestHandler):
    """The label app's requests; `make_handler` binds it to one workspace (`ctx`)."""

    server_version = "agentprop-label"
    ctx: ClassVar[_HandlerContext]

    def log_message(self, format: str, *args: Any) -> None:
        if not self.ctx.quiet:
            super().log_message(format, *args)

    # -- plumbing ---------------------------------------------------------------------
    def _send(self, status: int, body: str, nonce: str = "") -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        # "same-origin", not "no-referrer": under no-referrer a browser sends
        # `Origin: null` on our own form posts, and null cannot tell them from a
        # cross-site post out of a sandboxed frame
        self.send_header("Referrer-Policy", "same-origin")
        self.send_header(
            "Content-Security-Policy",
            f"default-src 'none'; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        )
        self.end_headers()
        self.wfile.write(data)

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _error(self, status: int, message: str) -> None:
        nonce = secrets.token_urlsafe(12)
        body = f"<h1>{esc(status)}</h1><p>{esc(message)}</p><p><a href=\"/\">start</a></p>"
        self._send(status, _page("error", body, nonce), nonce)

    def _open(self) -> Workspace:
        return Workspace(self.ctx.workspace_path, create=False, check=False)  # checked at start

    # -- GET --------------------------------------------------------------------------
    def _host_ok(self) -> bool:
        """DNS rebinding: only the names this server was bound to (421 otherwise)."""
        srv = self.server
        if host_allowed(self.headers.get("Host"), getattr(srv, "bound_host", "127.0.0.1"),
                        int(getattr(srv, "server_port", 0))):
            return True
        self._error(MISDIRECTED, "this server answers only to the names it was bound to"
                    " (127.0.0.1, localhost, [::1], --host)")
        return False

    def _headers_read(self) -> None:
        """The request line and headers are in: their deadline no longer applies."""
        clear = getattr(self.server, "clear_deadline", None)
        if clear is not None:
            clear(self.connection)

    def do_GET(self) -> None:
        self._guarded(self._get)

    def do_POST(self) -> None:
        self._guarded(self._post)

    def _guarded(self, action: Callable[[], None]) -> None:
        """Host check, then `action`; a client that left gets nothing, a bad request
        400, a bug 500 (one bad request must not kill the server)."""
        self._headers_read()
        try:
            if self._host_ok():
                action()
        except ConnectionError:
            return
        except BadRequest as e:
            self._safe_error(HTTPStatus.BAD_REQUEST, str(e))
        except Exception as e:
            self._safe_error(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(e).__name__}: {e}")

    def _safe_error(self, status: int, message: str) -> None:
        with contextlib.suppress(OSError):
            self._error(status, message)

    def _get(self) -> None:
        parts = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/":
            self._index()
        elif parts.path == "/label":
            self._label(q)
        elif parts.path == "/done":
            self._done(q)
        else:
            self._error(HTTPStatus.NOT_FOUND, "no such page")

    def _annotator(self, q: dict[str, str]) -> str | None:
        """The annotator's name; None when missing or too long. A name with control
        characters is a BadRequest (stored text must never drive a terminal)."""
        name = " ".join(q.get("annotator", "").split())
        if has_control_chars(name):
            raise BadRequest("a name cannot hold control characters")
        return name if 0 < len(name) <= MAX_NAME else None

    def _index(self) -> None:
        nonce = secrets.token_urlsafe(12)
        with self._open() as ws:
            n = len(ws.label_sample())
        body = (
            "<h1>agentprop · label answers</h1>"
            '<div class="card">'
            "<p>For each item you see the question, the reference answer and the agent's "
            "final answer. Mark the agent's answer <b>correct</b>, <b>incorrect</b> or "
            "<b>unsure</b> (when you cannot tell). Keyboard: <kbd>c</kbd> <kbd>i</kbd> "
            "<kbd>u</kbd> to label, <kbd>n</kbd>/<kbd>b</kbd> to move.</p>"
            f"<p>The sample has <b>{n}</b> item(s). Enter your name to start; with the "
            "same name you resume where you stopped.</p>"
            '<form method="get" action="/label">'
            f'<input id="annotator" name="annotator" maxlength="{MAX_NAME}" required '
            'autofocus placeholder="your name"> <button id="start" type="submit">Start'
            "</button></form></div>"
        )
        if n == 0:
            body += ('<p class="muted">No label sample yet: run '
                     "<code>agentprop label sample --workspace W</code>.</p>")
        self._send(HTTPStatus.OK, _page("agentprop labels", body, nonce), nonce)

    def _label(self, q: dict[str, str]) -> None:
        annotator = self._annotator(q)
        if annotator is None:
            self._redirect("/")
            return
        view = _view(q)
        keep = {"view": "full"} if view == "full" else {}  # the choice stays on
        with self._open() as ws:
            st = _State(ws, annotator)
            tid = q.get("trace")
            if not tid:
                nxt = st.next_unlabelled()
                if nxt is None:
                    self._redirect(_url("/done", annotator=annotator))
                else:
                    self._redirect(_url("/label", annotator=annotator, trace=nxt, **keep))
                return
            if tid not in st.queue:
                self._error(HTTPStatus.NOT_FOUND, "this item is not in your sample")
                return
            trace = ws.get_trace(tid)
        if trace is None:
            self._error(HTTPStatus.NOT_FOUND, "trace not in the workspace")
            return
        self._send_item(annotator, st, trace, view)

    def _send_item(self, annotator: str, st: _State, trace: Trace,
                   view: LabelView = "blind") -> None:
        nonce = secrets.token_urlsafe(12)
        i = st.queue.index(trace.id)
        n = len(st.queue)
        full = view == "full"
        keep = {"view": "full"} if full else {}
        question, reference = _question_reference(trace, self.ctx.get_task(trace.task_id))
        current = st.mine.get(trace.id)
        back = (_url("/label", annotator=annotator, trace=st.queue[i - 1], **keep)
                if i > 0 else "")
        nxt = (_url("/label", annotator=annotator, trace=st.queue[i + 1], **keep)
               if i + 1 < n else _url("/done", annotator=annotator))
        other = _url("/label", annotator=annotator, trace=trace.id,
                     **({} if full else {"view": "full"}))
        # blind by default: nothing that tells the condition or the corruption; the
        # annotator may unblind, and the label then records that it was made so
        switch = (
            '<p class="view" id="view">Unblinded view: the injection and the agent\'s '
            "proposed arguments are shown, and your labels are recorded as made "
            f'unblinded. <a id="blind" href="{esc(other)}">back to the blind view</a></p>'
            if full else
            '<p class="view muted" id="view">Blind view: nothing here tells whether or '
            f'how this episode was corrupted. <a id="unblind" href="{esc(other)}">show '
            "the injection details</a> (your labels are then recorded as unblinded)</p>")
        cur = ' class="current"'
        buttons = "".join(
            f'<button type="submit" name="label" value="{v}" id="btn-{v}"'
            f'{cur if current and current.label == v else ""}>'
            f"{v.capitalize()} <kbd>{v[0]}</kbd></button>"
            for v in LABELS
        )
        n_obs = sum(1 for ev in trace.events if isinstance(ev, ToolResultEvent))
        n_done = sum(1 for t in st.queue if t in st.mine)
        # the decision comes right after the answer, so opening the observations never
        # pushes the buttons off the screen
        body = (
            '<header><span class="title">agentprop · labels</span>'
            f'<span>item <span class="progress" id="progress">{i + 1} / {n}</span></span>'
            f'<span class="muted"><progress max="{n}" value="{n_done}"></progress> '
            f"labelled {n_done} of {n}</span>"
            + _plan_badge(st.progress)
            + '<span class="grow"></span>'
            f'<span class="muted">annotator <b id="who">{esc(annotator)}</b> · '
            '<a href="/">switch</a></span></header>'
            f'<div class="box q"><h2>Question</h2><pre id="question">{esc(question)}</pre>'
            "</div>"
            '<div class="box ref"><h2>Reference answer</h2>'
            f'<pre id="reference">{esc(reference)}</pre></div>'
            '<div class="box ans"><h2>Agent\'s final answer</h2>'
            f'<pre id="answer">{esc(_answer_text(trace, full))}</pre></div>'
            '<form method="post" action="/label" id="form" class="decide">'
            f'<input type="hidden" name="annotator" value="{esc(annotator)}">'
            f'<input type="hidden" name="trace" value="{esc(trace.id)}">'
            f'<input type="hidden" name="view" value="{view}">'
            '<h2>Is the agent\'s answer correct?'
            + (f' <span class="muted">(your label: <b id="current">{esc(current.label)}'
               "</b>)</span>" if current else "") + "</h2>"
            f'<div class="bar">{buttons}</div>'
            '<label class="note" for="note">Note (optional, saved with the label)</label>'
            f'<textarea name="note" id="note" maxlength="{MAX_NOTE}">'
            f"{esc(current.note if current else '')}</textarea></form>"
            '<div class="nav">'
            + (f'<a id="back" href="{esc(back)}">← back <kbd>b</kbd></a>' if back
               else '<span class="muted">← back</span>')
            + f'<a id="next" href="{esc(nxt)}">next <kbd>n</kbd> →</a>'
            '<span class="muted">skip without labelling</span></div>'
            f'<details id="obs"><summary>Tool observations ({n_obs}) <kbd>t</kbd>'
            f"</summary>{switch}{_observations_html(trace, full)}</details>"
            '<p class="muted">Keys: <kbd>c</kbd> correct · <kbd>i</kbd> incorrect · '
            "<kbd>u</kbd> unsure · <kbd>n</kbd>/<kbd>→</kbd> next · <kbd>b</kbd>/"
            "<kbd>←</kbd> back · <kbd>t</kbd> observations</p>"
        )
        self._send(HTTPStatus.OK, _page(f"item {i + 1}", body, nonce, script=True), nonce)

    def _done(self, q: dict[str, str]) -> None:
        annotator = self._annotator(q)
        if annotator is None:
            self._redirect("/")
            return
        with self._open() as ws:
            st = _State(ws, annotator)
        done = [t for t in st.queue if t in st.mine]
        counts = {v: sum(1 for t in done if st.mine[t].label == v) for v in LABELS}
        nonce = secrets.token_urlsafe(12)
        left = len(st.queue) - len(done)
        first = _url("/label", annotator=annotator, trace=st.queue[0]) if st.queue else "/"
        if not st.queue:
            body = (
                '<h1 id="done">Nothing to label</h1><div class="card">'
                f"<p>There is no item for <b>{esc(annotator)}</b>: the sample is empty, "
                "or its items are assigned to or already labelled by other annotators."
                "</p><p>To add items: <code>agentprop label sample --workspace W</code>"
                ' (see its options for overlap and annotators). <a href="/">back</a>'
                "</p></div>"
            )
            self._send(HTTPStatus.OK, _page("done", body, nonce), nonce)
            return
        body = (
            f'<h1 id="done">{"Done" if left == 0 else "Not finished"}</h1>'
            '<div class="card">'
            f"<p><b>{esc(annotator)}</b>: labelled {len(done)} of {len(st.queue)} item(s)"
            + (f", <b>{left} left</b>" if left else "") + ".</p>"
            f'<p><progress max="{max(1, len(st.queue))}" value="{len(done)}"></progress>'
            "</p>"
            '<div class="counts">' + "".join(
                f"<span><b>{v}</b>{esc(k)}</span>" for k, v in counts.items()) + "</div>"
            + ("<p>Thank you. The labels are saved in the workspace; "
               "<code>agentprop report</code> uses them.</p>" if left == 0 else "")
            + _plan_table(st.progress)
            + f'<p><a href="{esc(first)}">review from the start</a> · '
            f'<a href="{esc(_url("/label", annotator=annotator))}">'
            + ("resume" if left else "check for new items") + "</a></p></div>"
        )
        self._send(HTTPStatus.OK, _page("done", body, nonce), nonce)

    # -- POST -------------------------------------------------------------------------
    def _read_form(self) -> dict[str, str] | None:
        """The urlencoded body as a dict; BadRequest when it is not one; None when the
        client did not send it in time (the connection is then closed)."""
        raw_length = (self.headers.get("Content-Length") or "0").strip()
        if not raw_length.isdigit():
            raise BadRequest("invalid Content-Length")
        length = int(raw_length)
        if length > MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request too large")
            return None
        srv = self.server
        set_deadline = getattr(srv, "set_deadline", None)
        if set_deadline is not None:
            set_deadline(self.connection, getattr(srv, "body_timeout_s", 30.0))
        try:
            body = self.rfile.read(length)
        except (TimeoutError, OSError):
            return None
        finally:
            self._headers_read()
        if len(body) < length:  # the client went away or ran out of time
            self.close_connection = True
            return None
        try:
            text = body.decode("utf-8")
            pairs = parse_qs(text, keep_blank_values=True, strict_parsing=False,
                             errors="strict", max_num_fields=16)
        except (UnicodeDecodeError, ValueError):
            raise BadRequest("the form is not UTF-8 urlencoded text") from None
        return {k: v[0] for k, v in pairs.items()}

    def _post(self) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        if cross_site_refusal("POST", headers) is not None:
            self._error(HTTPStatus.FORBIDDEN, "cross-site request refused")
            return
        if urlsplit(self.path).path != "/label":
            self._error(HTTPStatus.NOT_FOUND, "no such page")
            return
        form = self._read_form()
        if form is None:
            return
        annotator = self._annotator(form)
        value = form.get("label", "")
        tid = form.get("trace", "")
        if annotator is None or value not in LABELS:
            self._error(HTTPStatus.BAD_REQUEST, "a name and a label are required")
            return
        with self._open() as ws:
            st = _State(ws, annotator)
            if tid not in st.queue:
                self._error(HTTPStatus.BAD_REQUEST, "this item is not in your sample")
                return
            view = _view(form)
            ws.put_labels([Label(trace_id=tid, annotator=annotator, label=value,
                                 note=form.get("note", "")[:MAX_NOTE], view=view)])
            st = _State(ws, annotator)
        nxt = st.next_unlabelled(tid)
        if nxt is None:
            self._redirect(_url("/done", annotator=annotator))
        else:
            self._redirect(_url("/label", annotator=annotator, trace=nxt,
                                **({"view": "full"} if view == "full" else {})))


def make_handler(workspace_path: Path, get_task: Callable[[str], Task | None],
                 *, quiet: bool = True, socket_timeout_s: float | None = None
                 ) -> type[BaseHTTPRequestHandler]:
    """A handler class for `workspace_path`. `socket_timeout_s`: each read waits at most
    this long, a backstop for servers run without LabelServer's deadlines (the
    whole-request deadlines are LabelServer's)."""
    ctx = _HandlerContext(workspace_path, get_task, quiet)
    return type("Handler", (_Handler,), {"ctx": ctx, "timeout": socket_timeout_s})


class LabelServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with bounded connections and read deadlines.

    At most `max_connections` requests are served at once (one thread each); beyond that
    a client gets 503 at once. A connection that has not sent its headers within
    `header_timeout_s`, or its body within `body_timeout_s` of the headers, is shut down
    by the serving loop (`service_actions`, every `poll_interval`), so slow or silent
    clients never hold a thread for long."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], *,
                 max_connections: int = 32, header_timeout_s: float = 10.0,
                 body_timeout_s: float = 30.0) -> None:
        super().__init__(address, handler)
        self.bound_host = address[0]
        self.header_timeout_s = header_timeout_s
        self.body_timeout_s = body_timeout_s
        self._slots = threading.BoundedSemaphore(max_connections)
        self._deadlines: dict[socket.socket, float] = {}
        self._lock = threading.Lock()

    def set_deadline(self, sock: socket.socket, seconds: float) -> None:
        with self._lock:
            self._deadlines[sock] = time.monotonic() + seconds

    def clear_deadline(self, sock: socket.socket) -> None:
        with self._lock:
            self._deadlines.pop(sock, None)

    def service_actions(self) -> None:
        now = time.monotonic()
        with self._lock:
            expired = [s for s, t in self._deadlines.items() if t <= now]
            for s in expired:
                del self._deadlines[s]
        for s in expired:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nRetry-After: 1\r\n"
                                b"Content-Length: 0\r\nConnection: close\r\n\r\n")
            self.shutdown_request(request)
            return
        self.set_deadline(request, self.header_timeout_s)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.clear_deadline(request)
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.clear_deadline(request)
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up or timed out is not an error worth a traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


def make_server(workspace: str | Path, suite: Suite | None, *, host: str = "127.0.0.1",
                port: int = 8765,
                quiet: bool = True, max_connections: int = 32, header_timeout_s: float = 10.0,
                body_timeout_s: float = 30.0) -> LabelServer:
    """A ready (not yet serving) label server; port 0 picks a free port."""
    path = Path(workspace)
    Workspace(path, create=False).close()  # fail early on a missing or damaged workspace
    get_task: Callable[[str], Task | None] = suite.get if suite is not None else (lambda _: None)
    handler = make_handler(path, get_task, quiet=quiet, socket_timeout_s=header_timeout_s)
    return LabelServer((host, port), handler, max_connections=max_connections,
                       header_timeout_s=header_timeout_s, body_timeout_s=body_timeout_s)
