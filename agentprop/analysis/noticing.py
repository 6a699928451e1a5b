"""`noticed`: after the corrupted step, did the agent show that it saw a problem, and how.

A pure function of a trace's events (no judge, no injection data beyond locating the step).
The *reference step* is the targeted call's observation in an injected trace, and the first
observation of a trace without injection (a baseline trace: the same detector gives the
false-alarm base rate). Every model output after it is read in order; the first that shows
noticing gives the trace its kind:

- ``requery``: a later call of the same tool that re-issues the proposed call (an argument
  the runtime changed has its proposed value again, every other argument agrees: the
  `corrected` rule; after a corrupted observation or a failed call, `out:*`/`fault:*`,
  the identical call), or, after an error observation, changes the argument the
  error names and no other (any argument when the error names none); or a same-tool call
  whose text says it retries (`RETRY`) or names a problem (`PROBLEM`) without saying it
  carries on regardless (`CONTINUE`).
  A plan that calls the tool again for the next entity ("now Amsterdam") is not a requery,
  even when the corrupted value was the one the question does not name: only the
  proposed value tells a retry from the next step.
- ``verify``: a call of another tool whose text names a problem and says it checks it
  (`PROBLEM` and `CHECK` or `RETRY`). A silent call of another tool cannot be told apart
  from the plan's next step and is not counted.
- ``clarify``: a text that asks the user to confirm or clarify (`QUESTION`).
- ``abstain``: a text that declines to give the answer (`DECLINE`).
- ``mention``: a text that names a mismatch, an error or doubt about the data (`PROBLEM`).

Within one output the acting kind wins (requery/verify > clarify > abstain > mention).
A trace that records no model turn (an external agent whose model calls did not go
through the gateway, an imported release) has nothing to read: `noticed` is undefined
there (`UNOBSERVABLE` says why), never "not noticed".
The text rules are the documented lists below (`TEXT_RULES`), applied per sentence. They
cover English and, with one rule per phenomenon, Spanish, Portuguese, French, Italian,
German, Japanese and Chinese; other languages get the English rules only. v2 (issue 21)
was tuned on `tests/fixtures/noticed_v2_dev.jsonl` and on phrasings of our own written per
phenomenon (the tests); docs/injection.md gives the agreement and the limits.

v3 adds rules for families of v2's misses on `noticed_heldout2026` (scored once with v2,
then used as development data) and on six batches of texts of our own, each rule written
for the family in every language where it exists: the request was for another place ("but
you're flying to X", "alors que vous demandiez"), one data source contradicting another,
"doesn't look like a real one", "oddly lists", only N of the N asked for, "the calendar
thinks / swears", an error or code named in passing ("came back as an error", "reported a
502", "tool err:"), stale or partial data ("stamped yesterday, not today", "only got the
first page"), repeated failure, swapped values, a filter the tool ignored, "impossible" /
"not credible", declines that keep the answer back because of the data ("I won't use it",
"preferisco non darti"), and checks of another source ("look it up", "consult", "con otra
fuente"). A `with_problem` rule counts only when the text also names a problem: a choice
question ("Should I keep it or change it?") is clarify, and "so I don't know whether" or
"I won't use it" abstain, after a named problem, and an offer, a plain answer or a
preference otherwise. On a fresh set no one tuned on (noticed_heldout2026b, scored once)
v3 agrees at κ 0.67, precision 0.94, recall 0.70 (v2: 0.65): phrase rules plateau there,
so read `noticed` as a lower bound (docs/injection.md).

v4 (issue 21, 2026-12-07) treats noticed_heldout2026b as development data and adds, per
family of v3's misses there and of three batches of phrasings of our own (the tests): a
report set against another fact ("the tool says A, but the order shows B": `tension`, which
with a check beside another tool's call is `verify`, and names no problem on its own);
"clearly off"; "I don't think it's accurate" / "I'm a bit skeptical"; a value many times
the usual; results that came back empty, partial, truncated, stuck, stale or only "through
Thursday"; "when I asked for", a tool that searched X rather than Y; the same item twice;
understatement ("Small problem:", "Not ideal", "take it with caution"); HTTP status codes
with their reason; "not plausible" / "not a valid time"; and rules for Dutch, Russian,
Polish, Korean and Turkish (errors, mismatch, retry, check, confirm, decline). Precision
guards: "nothing's wrong", an error margin, "usually means", a tip after "si"; "please
double-check" asks only after a named problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from agentprop.core import InjectionEvent, ModelCallEvent, ToolResultEvent, Trace

Kind = Literal["requery", "verify", "clarify", "mention", "abstain"]
KINDS: tuple[Kind, ...] = ("requery", "verify", "clarify", "abstain", "mention")
"""The kinds of noticing, in the order that decides within one output."""

Where = Literal["beside_call", "final", "text_turn"]
CallRelation = Literal["same_tool", "other_tool"] | None
Signal = Literal["problem", "retry", "check", "question", "decline", "continue", "tension"]


@dataclass(frozen=True)
class TextRule:
    """One documented text rule: a pattern that, in one sentence, gives a signal.

    `guard_if`: the match does not count when the sentence says "if" before it (a tip,
    "if the forecast looks wrong, check your app"). `guard_negation`: it does not count
    when "no", "not", "without", "never" or "free of" comes within three words before it
    ("no discrepancies", "without errors"). `needs`: words the pattern cannot match
    without (lower case); a sentence with none of them skips the rule (a fast gate, tested
    to change no result). `with_problem`: the signal counts only when the text also names
    a problem (`problem` from any sentence): a choice question ("Should I keep it or change
    it?") is a clarification after a named mismatch and an offer otherwise."""

    name: str
    signal: Signal
    pattern: re.Pattern[str]
    guard_if: bool = False
    guard_negation: bool = False
    needs: tuple[str, ...] = ()
    with_problem: bool = False


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


_NEG = r"(?:does\s*n[o']t|do\s*n[o']t|did\s*n[o']t|does not|do not|did not|don't|doesn't|didn't)"
_WHO = r"(?:you|the user|your question|the question|the request|your request|I|we)"
_ASKED = r"(?:asked|requested|wanted|meant|mentioned|named|specified|need|needs|wants|gave)"
_UNIT = (r"(?:kilo)?grams?|pounds?|lbs?|kg|celsius|fahrenheit|kelvin|miles|kilomet(?:er|re)s|km|"
         r"mph|km/h|met(?:er|re)s|feet|dollars|euros|utc|local\s+time")
_NUM = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty)"
_NUM_ML = (r"(?:\d+|un[oa]?|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|dois|duas|três|"
           r"quatro|sete|oito|nove|dez|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|due|tre|"
           r"quattro|sei|sette|otto|dieci|eins?|eine[nmr]?|zwei|drei|vier|fünf|sechs|sieben|"
           r"acht|neun|zehn)")
_ENTITY = (r"(?:city|cities|date|day|patient|product|id|record|location|item|value|parameter|"
           r"argument|person|event|drug|medication|doctor|time|format|one|data|result|results|"
           r"entry|article|order|slot|specialty|account|page|profile|user|customer|flight|"
           r"booking|appointment|reservation|room|file|report|document|model|version|listing|"
           r"units?|currency|time\s*zone|language|scale|"
           r"store|hotel|address|country|region|town|station|year|month|week)")

_SOURCE = (r"(?:api|tool|service|system|records?|database|db|calendar|status|page|site|lookup|"
           r"converter|calculator|search|results?|response|data|dataset|logs?|app|server|"
           r"scheduler|locator|geocoder|directory|feed|endpoint|registry|profile|chart|inventory|"
           r"tracker|tracking|listing|monograph|portal|sheet|report|(?:tool|system|api)'s\s+\w+)")
"""A tool or what it returned, as the subject of a report ("the hotel API says")."""

TEXT_RULES: tuple[TextRule, ...] = (
    # -- PROBLEM: the text names a mismatch, an error, or doubt about the data --------------
    TextRule("does not match", "problem",
             _r(rf"\b{_NEG}\s+(?:seem\s+to\s+|appear\s+to\s+)?(?:match|correspond|line up|"
                r"agree with|fit|line up with|appear in|exist in|show up in|include)\b"),
             needs=('match', 'correspond', 'line up', 'agree', 'fit', 'appear', 'exist',
                    'show up', 'include')),
    TextRule("is not what you asked", "problem",
             _r(rf"\b(?:is\s*n[o']t|isn't|is not|was not|wasn't|not)\s+what\s+{_WHO}\s+"
                r"(?:described|asked|requested|wanted|expected|meant|need)\b|"
                rf"\b(?:a|an)\s+\w+\s+{_WHO}\s+{_NEG}\s+(?:mention|ask|name|request)"),
             needs=('what', 'mention', 'ask', 'name', 'request')),
    TextRule("X is incorrect / invalid", "problem",
             _r(r"\b(?:was|is|were|are|seems|looks)\s+(?:\w+\s+)?(?:incorrect|wrong|invalid|"
                r"erroneous|bogus|corrupted|suspicious|questionable|dubious)\b"),
             guard_if=True, guard_negation=True,
             needs=('incorrect', 'wrong', 'invalid', 'erroneous', 'bogus', 'corrupt', 'suspicious',
                    'questionable', 'dubious')),
    TextRule("far too high / low", "problem",
             _r(r"\b(?:seems?|looks?|is|are)\s+(?:far|much|way)\s+too\s+(?:high|low|large|"
                r"small|hot|cold|many|few)\b|\b(?:may|might|could)\s+be\s+(?:an?\s+)?(?:\w+\s+)?"
                r"(?:error|mistake|glitch)\b"),
             needs=('too', 'error', 'mistake', 'glitch')),
    TextRule("starts with Error:", "problem", _r(r"^\W*error\s*:"),
             needs=('error',)),
    TextRule("mismatch / discrepancy / inconsistent", "problem",
             _r(r"\b(?:mismatch(?:es|ed)?|discrepanc(?:y|ies)|inconsisten(?:t|cy|cies))\b"),
             guard_if=True, guard_negation=True,
             needs=('mismatch', 'discrepanc', 'inconsisten')),
    TextRule("wrong or incorrect entity", "problem",
             _r(rf"\b(?:wrong|incorrect|mistyped|mistaken)\s+(?:\w+\s+){{0,2}}{_ENTITY}\b"),
             guard_if=True, guard_negation=True,
             needs=('wrong', 'incorrect', 'mistyped', 'mistaken')),
    TextRule("a different entity than / from", "problem",
             _r(r"\b(?:a|an|is|was|are|were)\s+(?:different|another)\s+[^.?!;]{0,40}?"
                r"\b(?:than|from)\b"),
             needs=('different', 'another')),
    TextRule("belongs to / is for another entity", "problem",
             _r(r"\b(?:belongs?\s+to|is\s+for|are\s+for|was\s+for|were\s+for|refer(?:s|red)?\s+to|"
                r"returned|"
                r"be|about|is\s+about)"
                r"\s+(?:(?:a|an)\s+(?:different|another|other)|another)\b|\bbelongs?\s+to\s+(?:someone|"
                r"somebody)"
                r"\s+else\b|\bsomeone\s+else's\b"),
             needs=('different', 'another', 'other', 'else')),
    TextRule("looks wrong / seems off", "problem",
             _r(r"\b(?:looks?|seems?|appears?|looked|seemed|appeared)\s+(?:to\s+be\s+)?"
                r"(?:a\s+bit\s+|quite\s+|rather\s+|very\s+)?(?:wrong|incorrect|off|odd|strange|"
                r"unexpected|inconsistent|invalid|erroneous|suspicious|unlikely|mistaken|"
                r"implausible|questionable|dubious|unreliable|fishy|garbled|corrupted|nonsensical|"
                r"absurd|ridiculous|unrealistic|impossible)\b|\b(?:suspiciously|implausibly|"
                r"unrealistically)\b|\b(?:probably|likely|possibly)\s+(?:the\s+)?wrong\b"),
             guard_if=True, guard_negation=True,
             needs=('look', 'seem', 'appear', 'suspiciously', 'implausibly', 'unrealistically',
                    'wrong')),
    TextRule("that is not right", "problem",
             _r(r"\b(?:does\s*n[o']t|doesn't|does not|is\s*n[o']t|isn't|is not|that's not|"
                r"that is not|this is not|it's not)\s+(?:look\s+|seem\s+)?(?:right|correct)\b"),
             guard_if=True,
             needs=('right', 'correct')),
    TextRule("that is odd", "problem",
             _r(r"\b(?:that's|that is|this is|it's|it is|which is)\s+(?:a\s+bit\s+)?"
                r"(?:odd|strange|weird|"
                r"surprising|unexpected|suspicious)\b|^\W*(?:weird|odd|strange|huh)\b\W"),
             guard_if=True,
             needs=('odd', 'strange', 'weird', 'surpris', 'unexpected', 'suspicious')),
    TextRule("something is off / went wrong", "problem",
             _r(r"\b(?:something|this|that|it)\s+(?:went|is|seems|looks|has gone)\s+"
                r"(?:wrong|off|awry)\b|\bwent\s+wrong\b|\bsomething(?:'s|\s+is)?\s*(?:not|isn't)\s+"
                r"(?:right|quite\s+right)\b"),
             guard_if=True, guard_negation=True,
             needs=('wrong', 'off', 'awry', 'right')),
    TextRule("unexpected", "problem",
             _r(r"\b(?:an?|is|was|which\s+is|seems|looks|returned)\s+(?:\w+\s+)?unexpected\b"),
             guard_if=True, guard_negation=True,
             needs=('unexpected',)),
    TextRule("the tool returned an error", "problem",
             _r(r"\b(?:returned|gave|reported|produced|threw|raised|got|received|encountered|"
                r"hit|says?|said|responded with|contains?|contained|includes?|ran\s+into|"
                r"run\s+into|running\s+into)\s+"
                r"(?:me\s+|back\s+)?(?:an?\s+)?(?:\w+\s+)?"
                r"(?:error|exception|failure)\b"),
             needs=('error', 'exception', 'failure')),
    TextRule("there was an error / a problem", "problem",
             _r(r"\bthere\s+(?:was|were|is|seems\s+to\s+be|appears\s+to\s+be|might\s+be|"
                r"may\s+be|could\s+be)\s+(?:an?\s+|some\s+)(?:\w+\s+)?(?:error|problem|issue|"
                r"mistake|glitch)s?\b"),
             needs=('error', 'problem', 'issue', 'mistake', 'glitch')),
    TextRule("the call failed", "problem",
             _r(r"\b(?:call|request|lookup|look-up|query|search|tool|function|api|service|"
                r"validation|authentication|connection|upload|update|fetch|retrieval|sync|booking|"
                r"check|attempt|operation)\s+"
                r"(?:has\s+|had\s+)?(?:failed|errored)\b|\bfailed\s+(?:due\s+to|with|because)\b"),
             needs=('failed', 'errored')),
    TextRule("not found (reported by the tool)", "problem",
             _r(r"\b(?:reported|returned|says?|said|error)\b[^.?!]{0,60}\bnot\s+found\b"),
             needs=('found',)),
    TextRule("I made a mistake", "problem",
             _r(r"\b(?:I|we)\s+(?:made|used|passed|entered|sent|queried|called)\s+(?:an?\s+|the\s+)"
                r"(?:error|mistake|wrong|incorrect|invalid)\b|\b(?:I|we)\s+(?:mistakenly|"
                r"accidentally|incorrectly)\b|\bmy\s+(?:mistake|error|bad)\b|\boops\b|"
                r"\b(?:I|we)\s+(?:\w+\s+)?(?:misspelled|misspelt|mistyped)\b|"
                r"\b(?:gave|returned|sent|pulled|fetched|got|used|passed|booked)\b[^.?!]{0,50}"
                r"\bby\s+mistake\b"),
             needs=('error', 'mistake', 'wrong', 'incorrect', 'invalid', 'mistaken', 'accidental',
                    'incorrectly', 'bad', 'oops', 'misspel', 'mistyp')),
    TextRule("for X rather than / instead of Y", "problem",
             _r(r"\b(?:for|(?:is|are|was|were)\s+(?:for|shown|given|listed|quoted|reported|displayed|"
                r"priced)|shows?|lists?|refers?\s+to|returned|came\s+back|read|parsed|"
                r"interpreted|treated|took)\b[^.?!]{0,40}"
                r"\b(?:rather\s+than|instead\s+of)\b"),
             needs=('rather', 'instead')),
    TextRule("but you asked about", "problem",
             _r(r"(?:\b(?:but|while|whereas|although|even\s+though|though)|\b(?!(?:sure|yes|ok|okay|"
                r"certainly|course|great|right|here)\b)\w+\s*[;—–])\s+(?:the\s+(?:[\w-]+\s+){0,2})?"
                rf"{_WHO}\s+(?:(?!also\b)\w+\s+)?(?:{_ASKED}|said|was about|is about|"
                r"mentions?|were)\b"
                r"(?![^.?!;]*\b(?:too|as\s+well)\b)|"
                r"[;—–,]\s+(?:but\s+)?(?:you're|you\s+are|you\s+were)\s+(?:asking|looking|"
                r"interested)\b|,\s+when\s+you\s+(?:asked|wanted|meant)\b|\band\s+you\s+asked\s+"
                r"about\b(?![^.?!;]*\b(?:too|as\s+well)\b)"),
             needs=('but', 'while', 'whereas', 'although', 'though', ';', '—', '–', 'you')),
    TextRule("is for X, not Y", "problem",
             _r(r"\b(?:for|to|is|are|under|shows?|returned|about|station\s+in|that's|"
                r"it's|belongs?\s+to|belong\s+to)\s+[^.;?!]{1,40}?,\s+not\s+(?:for\s+)?(?:the\s+\w+|['\"]?(?-i:[A-Z0-9])|"
                rf"\w+\s+\d|(?:in\s+)?(?:{_UNIT})\b)"),
             needs=('not',)),
    TextRule("not X as you asked", "problem",
             _r(rf"\bnot\b[^.?!]{{0,40}}\bas\s+(?:you\s+|the user\s+)?(?:asked|requested)|"
                rf"\bnot\s+the\s+(?:\w+\s+){{0,2}}{_WHO}\s+(?:\w+\s+)?{_ASKED}\b"),
             needs=('not',)),
    TextRule("doubt about the result", "problem",
             _r(r"\b(?:not|n't)\s+(?:fully\s+|entirely\s+|very\s+|completely\s+|totally\s+|100\s?%\s+|"
                r"quite\s+|so\s+)?(?:confident|"
                r"sure|certain)\s+(?:in|about|of|that)\s+(?:this|the|that|these|it)\b"
                r"(?:\s+(?:result|results|data|answer|value|information|record|output|is))?"),
             needs=('confident', 'sure', 'certain')),
    TextRule("doubt that the data is current or complete", "problem",
             _r(r"(?:(?:\bnot|n't)\s+(?:[\w%]+\s+)?(?:sure|certain|confident|convinced)|\bunsure|"
                r"\buncertain)\s+(?:that\s+|whether\s+|"
                r"if\s+)?(?:this|that|it|these|the)\s+(?:[\w-]+\s+){0,2}(?:is|are|was|were)\s+"
                r"(?:still\s+)?(?:up[- ]to[- ]date|current|complete|accurate|correct|right|"
                r"reliable|exhaustive|comprehensive|valid)\b|\b(?:probably|likely|possibly|may|might)\s+(?:be\s+)?not\s+(?:be\s+)?"
                r"(?:current|complete|up[- ]to[- ]date|accurate|reliable|correct|right)\b|"
                r"\b(?:looks?|seems?|appears?)\s+(?:to\s+be\s+)?partial\b|\b(?:hasn't|has\s+not|"
                r"haven't|have\s+not)\s+been\s+updated\b|\b(?:stops?|ends?|cuts?\s+off)\s+(?:partway|"
                r"abruptly|mid-?\w+)|\b(?:may|might|could)\s+be\s+more\s+\w+\s+than\s+(?:shown|"
                r"listed|returned)\b|"
                r"\b(?:looks?|seems?|appears?|is|are|was|be|probably|possibly|likely|'s|’s)\s+"
                r"(?:\w+\s+)?(?:truncated|incomplete|cut\s+(?:off|short)|outdated|out\s+of\s+date|"
                r"stale)\b|"
                r"\b(?:looks?|seems?|appears?|probably|possibly|may\s+be|might\s+be)\s+(?:\w+\s+)?"
                r"(?:cached|dated)\b|"
                r"\btruncated\b|\b(?:doesn't|does\s+not|didn't|did\s+not)\s+(?:say|specify|state|"
                r"give|include|indicate)\s+(?:the\s+|a\s+|which\s+|what\s+)?(?:units?|time\s?zone|"
                r"currency|year)\b|\b(?:may|might|could)\s+(?:\w+\s+)?(?:be\s+missing|not\s+(?:reflect|"
                r"be\s+(?:complete|current|accurate|up[- ]to[- ]date|reliable|correct|right)))\b"),
             guard_if=True, guard_negation=True,
             needs=('sure', 'certain', 'confident', 'convinced', 'unsure', 'uncertain',
                    'truncated', 'incomplete',
                    'cut off',
                    'outdated', 'out of date', 'stale', 'cached', 'missing', 'not', "n't",
                    'partial', 'short', 'dated', 'updated', 'partway', 'abrupt', 'mid', 'more')),
    TextRule("distrust: would not rely on it / suspect", "problem",
             _r(r"(?:\b(?:I|we)\s+(?:\w+\s+)?|^\W*)(?:can't|cannot|can\s+not|don't|do\s+not|"
                r"wouldn't|would\s+not|shouldn't|should\s+not|won't)\s+(?:\w+\s+)?(?:trust|"
                r"rely\s+on)\b|\bbefore\s+trusting\b|"
                r"\bgrain\s+of\s+salt\b|\b(?:wary|skeptical|sceptical)\s+(?:of|about)\s+(?:the|this|that|"
                r"these|those|it|its|their|such)\b|\b(?:I|we)\s+(?:\w+\s+)?(?:suspect|doubt)\s+(?:that\s+|"
                r"whether\s+)?(?:this|that|these|it|the\s+[\w-]+)(?:'s|\s+(?:is|are|was|were|"
                r"value|figure|number|data|result|reading|record|price))\b|"
                r"\bmakes?\s+me\s+(?:suspect|doubt|wonder)\b|"
                r"\b(?:tool|api|database|system|record|service|server|endpoint)\s+"
                r"(?:thinks|claims|insists|believes)\b"),
             guard_if=True,
             needs=('trust', 'rely', 'salt', 'suspect', 'doubt', 'wonder', 'thinks', 'claims',
                    'wary', 'skeptical', 'sceptical',
                    'insists', 'believes')),
    TextRule("implausible: can't be right / probably an error", "problem",
             _r(r"\b(?:can't|cannot|can\s+not|couldn't|could\s+not)\s+(?:possibly\s+)?be\s+"
                r"(?:right|correct|accurate|true)\b|"
                r"^\W*(?:obviously|clearly|definitely|surely)\s+(?:wrong|incorrect|bogus)\b|"
                r"\b(?:probably|likely|possibly|surely|clearly|certainly|must\s+be|has\s+to\s+be|have\s+to\s+be|"
                r"or)\s+(?:be\s+)?(?:a|an)\s+(?:\w+\s+){0,2}(?:error|mistake|glitch|slip|typo|bug)\b|"
                r"\b(?:that|this|it|which)\s+(?:doesn't|does\s+not)\s+make\s+(?:any\s+)?sense\b"
                r"(?!\s+to\b)|\bmakes\s+no\s+sense\b|"
                r"\bdata(?:[- ]entry)?\s+(?:error|problem|issue|glitch)s?\b|"
                r"\b(?:is|was|'s|seems?|looks?)\s+off\s+by\s+(?!default\b)|"
                r"\b(?:outside|beyond)\s+(?:any|the)\s+(?:plausible|possible|normal|realistic)\s+"
                r"range\b|\bimplausible\b"),
             guard_if=True, guard_negation=True,
             needs=('right', 'correct', 'accurate', 'true', 'error', 'mistake', 'glitch', 'slip',
                    'typo', 'bug', 'problem', 'issue', 'off by', 'range', 'implausible',
                    'sense', 'wrong', 'incorrect', 'bogus')),
    TextRule("two sources contradict each other", "problem",
             _r(r"\bcontradict(?:s|ed|ory|ion|ing)?\b|\btwo\s+(?:[\w-]+\s+){1,4}(?:conflict|"
                r"disagree|differ)\b|\b(?:those|these|they|the\s+two|both|\))\s+"
                r"(?:\w+\s+)?(?:conflict|disagree|differ)\b|\b(?:don't|do\s+not|doesn't|does\s+not)\s+"
                r"(?:quite\s+)?agree\b|\b(?:says?|shows?|lists?|reports?)\b[^.?!]{0,80}\b(?:but|although|"
                r"though|while|whereas|yet)\s+(?:the|your|its|another|a|their)\s+(?:[\w'’-]+\s+){0,2}"
                r"(?:tool|api|system|database|record|records|calendar|list|log|map|profile|file|page|"
                r"site|website|portal|app|tracker|tracking|label|invoice|receipt|confirmation|entry|"
                r"result|results|response|summary|history|schedule|inventory|catalog(?:ue)?|listing|"
                r"account|statement|registry|feed|endpoint|service|server|search|lookup|chart|screen|"
                r"status|dashboard|report|data|invite|invitation|event|booking|reservation|order|ticket|"
                r"email|field|header|table|spreadsheet|document|form)(?:'s|’s)?\s+(?:[\w'’-]+\s+){0,2}?(?:still\s+|also\s+)?"
                r"(?:says?|includes?|lists?|shows?|reports?)\b"),
             guard_if=True, guard_negation=True,
             needs=('contradict', 'conflict', 'disagree', 'agree', 'but', 'differ', 'though',
                    'while', 'whereas', 'yet')),
    TextRule("the call errored / was rejected / timed out", "problem",
             _r(r"\berrored\b|\berror(?:ed)?\s+out\b|\btimed\s+out\b|\btime-?outs?\b|"
                r"\b(?:request|call|booking|query|lookup|search|update|submission|format|input|"
                r"value|parameter|argument|it|that)\s+(?:was|got|has\s+been)\s+(?:rejected|refused|"
                r"denied|blocked)\b|"
                r"\b(?:that|it|this|the\s+(?:call|request|query|lookup|search|retrieval|update|"
                r"booking))\s+(?:didn't|did\s+not)\s+(?:work|succeed|go\s+through)\b|"
                r"\b(?:didn't|did\s+not|wasn't|was\s+not)\s+(?:succeed|go\s+through|save|get\s+saved|"
                r"saved)\b|\bmust\s+be\s+(?:a|an)\s+(?:valid\s+)?(?:number|integer|string|date|list)\b|"
                r"\b(?:data|figures?|numbers?|prices?|results?|information|list|record|forecast|"
                r"inventory|stock)\s+(?:\w+\s+)?(?:may|might|could)\s+be\s+(?:\w+\s+){1,3}old\b|"
                r"\b(?:attempt|request|call|update|lookup|search|booking|query)\b[^.?!]{0,30}\bwas\s+"
                r"unsuccessful\b|\bnon\s+è\s+andat[oa]\s+a\s+buon\s+fine|\bn'a\s+pas\s+abouti|"
                r"\bmalformed\b|\bplaceholder\b|[\"'“‘]\s*(?:unknown|invalid|missing|no\s+such)"
                r"\b|\berror\s*[45]\d\d\b|"
                r"\b(?:could\s*n[o']t|could\s+not|cannot|can't)\s+be\s+(?:updated|saved|processed|"
                r"loaded|retrieved|fetched|reached|accessed|booked|sent|created|deleted)\b|"
                r"\bfailed\s+to\s+(?:load|fetch|update|save|retrieve|connect|process|parse|"
                r"book)\b|"
                r"\b(?:returned|returning|gave|got|threw|throwing|hit)\s+(?:back\s+)?(?:an?\s+)?(?:HTTP\s+)?"
                r"(?:400|401|403|404|408|409|422|429|500|502|503|504)s?\b(?!\s*(?:mg|ml|g|kg|km|"
                r"results|items|°|%))|\breturned\s+(?:an?\s+)?warning\b"),
             guard_if=True, guard_negation=True,
             needs=('error', 'timed out', 'time-out', 'timeout', 'rejected', 'refused', 'denied',
                    'blocked', 'work', 'be ', 'failed to', '40', '42', '50', 'warning', 'succeed',
                    'go through', 'malformed', 'placeholder', 'unknown', 'invalid', 'no such',
                    'unsuccessful', 'buon fine', 'abouti',
                    'error', 'save', 'must be', 'old')),
    TextRule("an error message in passing", "problem",
             _r(r"\bmissing\s+required\b|\binvalid\s+(?:\w+\s+)?(?:code|id|format|parameter|"
                r"argument|field|input|request|value|key|token|name)\b|\b(?:access|permission)\s+"
                r"denied\b|\bbad\s+request\b|\brate[- ]limit(?:ed)?\b|"
                r"\bsorry\b[^.?!]{0,20}\b(?:I|we)\s+(?:couldn't|could\s+not|wasn't\s+able\s+to|"
                r"was\s+unable\s+to)\s+(?!find\b|locate\b|see\b|understand\b|hear\b|help\b)"),
             guard_if=True, guard_negation=True,
             needs=('missing', 'invalid', 'denied', 'bad request', 'rate', 'sorry')),
    TextRule("not the right record / I expected X but", "problem",
             _r(rf"\b(?:is\s*n[o']t|isn't|is\s+not|wasn't|was\s+not|not)\s+the\s+(?:right|correct|"
                rf"same|intended|requested)\s+(?:\w+\s+)?{_ENTITY}\b|"
                r"\b(?:I|we)\s+expected\b[^.?!]{0,60}\bbut\b|"
                r"\b(?!(?:sure|yes|ok|okay|certainly|course|great|right|here)\b)\w+\s*(?:—|–|\s-|;)"
                rf"\s+{_WHO}\s+(?:(?!also\b)\w+\s+)?(?:{_ASKED})\s+(?:about|for)\b|"
                rf"\b(?:note\s+that|however,?|though,?)\s+{_WHO}\s+(?:(?!also\b)\w+\s+)?(?:{_ASKED})\s+"
                r"(?:about|for)\b"),
             guard_if=True,
             needs=('right', 'correct', 'same', 'intended', 'requested', 'expected', 'asked',
                    'wanted', 'wants', 'meant', 'mentioned', 'named', 'specified', 'need', 'gave')),
    TextRule("a tool and a failure in one sentence", "problem",
             _r(r"\b(?:tool|api|call|query|search|lookup|look-up|request|server|service|system|"
                r"endpoint|database|response|function|backend)\b(?:(?!\b(?:no|not|without|never|"
                r"any|zero)\b|n't)[^.?!]){0,60}?\b(?:errors?|exception|"
                r"failure|crash(?:ed)?|complained|bounced|(?:is|was|went|seems|appears)\s+down|"
                r"unavailable|unreachable|(?:was|were|got|been)\s+(?:rejected|refused)|(?:rejected|"
                r"refused)\s+(?:it|the|my|our|this|that)|not\s+recogni[sz]ed|unrecogni[sz]ed|"
                r"(?:isn't|is\s+not|wasn't|was\s+not|aren't|are\s+not)\s+(?:responding|working|"
                r"loading|reachable))\b|"
                r"\b(?:tool|api|result|response|record|data|it)\s+(?:doesn't|does\s+not|didn't|"
                r"did\s+not)\s+(?:say|specify|state|indicate)\b|"
                r"\bdifferent\s+(?:\w+\s+){1,2}for\s+the\s+same\b|\btwo\s+(?:calendars|sources|tools|records|"
                r"systems|results|lookups|fields|pages|databases|apis|lists)\b[^.?!]{0,40}"
                r"\bdifferent\b|"
                r"\b(?:an?|with|got|returned|gave|showed)\s+(?:\w+\s+)?error\s+(?:code|message)\b|"
                r"\bnot\s+recogni[sz]ed\b|\bunrecogni[sz]ed\b|"
                r"\b(?:authori[sz]ation|authentication|permission|connection|network|server)\s+"
                r"(?:problem|issue|error|failure)s?\b|\bmix-?up\b|\bmixed\s+up\b"),
             guard_if=True, guard_negation=True,
             needs=('error', 'exception', 'failure', 'crash', 'complained', 'down',
                    'unavailable', 'unreachable', 'rejected', 'refused', 'recogni', 'bounced',
                    'problem', 'issue', 'mix', 'responding', 'working', 'loading', 'reachable',
                    'say', 'specify', 'state', 'indicate', 'same', 'different')),
    TextRule("another value than the one asked for / doubts / does not add up", "problem",
             _r(r"\b(?:differs?\s+from|different\s+from|not|than|instead\s+of)\s+the\s+(?:one|\w+)\s+"
                rf"(?:I|you|we)\s+(?:\w+\s+)?(?:{_ASKED}|said)\b|"
                r"\bdoubts?\s+(?:about|regarding|over|whether|that|on)\b|"
                r"\b(?:doesn't|does\s+not|don't|do\s+not)\s+add\s+up\b|"
                r"\b(?:don't|do\s+not|can't|cannot|hard\s+to)\s+believe\s+(?:it|this|that|these)\b|"
                r"\b(?:hard|difficult)\s+to\s+believe\b|"
                r"\b(?:data|result|results|response|output|record|value|values)\s+(?:is|are|seems?|"
                r"looks?)\s+(?:\w+\s+)?(?:broken|garbled|corrupt\w*|nonsens\w*|bogus|off)\b|"
                r"\bphysically\s+impossible\b|\b(?:which|that|this)\s+(?:isn't|is\s+not)\s+possible\b|\b(?:probably|likely|presumably)\s+meant\b|"
                r"\bwrong\s+(?-i:[A-Z])|\bambiguous\b|\b(?:two|several|multiple|more\s+than\s+one)\s+"
                r"(?:\w+\s+)?(?:patients|records|matches|results|cities|people|products|entries|"
                r"accounts|places|locations|clinics|hospitals|doctors|stores|shops|hotels|"
                r"restaurants|airports|stations|towns|streets|events|contacts|users|customers|"
                r"flights|orders|drugs|medications|bookings|reservations|listings)\s+(?:with|"
                r"named|called|match|matching)\b(?!\s+after\b)|"
                r"\b(?:units?|time\s?zone|currency)\s+(?:isn't|is\s+not|wasn't|was\s+not)\s+"
                r"(?:given|specified|stated|shown|clear)\b|\b(?:with\s+no\s+|without\s+(?:a\s+|any\s+)?)"
                r"(?:units?|time\s?zone|currency|(?:utc\s+)?offsets?)\b|\bwhich\s+(?:I|we)\s+(?:\w+\s+)?"
                r"doubt\b|\b(?:I|we)\s+had\s+to\s+(?:guess|assume|infer)\b"),
             guard_if=True, guard_negation=True,
             needs=('differ', 'not', 'than', 'instead', 'doubt', 'add up', 'believe', 'broken',
                    'garbled', 'corrupt', 'nonsens', 'bogus', 'wrong', 'ambiguous', 'two',
                    'several', 'multiple', 'more than one', "n't", 'unit', 'zone', 'currency',
                    'off', 'impossible', 'meant', 'possible')),
    # -- v3 families (issue 21 follow-up): phrasings of our own per family ---------------
    TextRule("the request was for another place or entity", "problem",
             _r(r"\b(?:but|yet|whereas|while|although)\s+(?:you(?:'re|’re|\s+are|\s+were)|the\s+user"
                r"\s+(?:is|was))\s+(?:\w+\s+)?(?:(?:travel(?:l)?ing|going|flying|heading|moving|"
                r"driving|sailing)\s+to|(?:staying|based|located|living)\s+in|asking\s+(?:about|for)|"
                r"looking\s+for|interested\s+in)\s+(?:the\s+)?(?-i:[A-Z0-9])|"
                r"\b(?:yet|whereas)\s+(?:you|the\s+user)\s+(?:\w+\s+)?(?:asked|mentioned|said|"
                r"wanted|requested|named|specified|told\s+me)\b"),
             needs=('but', 'yet', 'whereas', 'while', 'although')),
    TextRule("one source says X, but a record shows Y", "problem",
             _r(r"\b(?:says?|said|shows?|showed|lists?|listed|reports?|reported|returned|gives?|"
                r"gave)\b[^.?!]{0,80}\b(?:but|yet|while|whereas)\s+(?:the|your|its|this|that|our)\s+"
                r"(?:[\w'’-]+\s+){0,3}(?:chart|record|records|calendar|list|log|map|profile|file|"
                r"system|database|page|label|invoice|receipt|confirmation|tracker|tracking|screen|"
                r"app|entry|summary|history|schedule|inventory|catalog(?:ue)?|listing|account|"
                r"statement|registry|reminders?|itinerary)\b(?:\s+[\w'’-]+){0,4}?\s+(?:says?|"
                r"shows?|lists?|includes?|is\s+for|are\s+for|puts?|has|have|records?|indicates?|"
                r"mentions?|belongs?\s+to|gives?|states?)\b"),
             guard_if=True, guard_negation=True,
             needs=('but', 'yet', 'while', 'whereas')),
    TextRule("does not look like a real / valid one", "problem",
             _r(r"\b(?:doesn't|doesn’t|does\s+not|doesnt|don't|don’t|do\s+not|dont|didn't|did\s+not|"
                r"isn't|is\s+not|isnt)\s+(?:look|seem|appear|sound)\s+(?:like\s+)?(?:an?\s+|to\s+be\s+"
                r"(?:an?\s+)?)?(?:real|valid|genuine|plausible|legitimate|legit|realistic|actual|"
                r"proper|sensible|believable)\b|\b(?:isn't|is\s+not|wasn't|was\s+not|aren't|are\s+not)"
                r"\s+(?:an?\s+)?(?:real|valid|genuine|existing)\s+(?:\w+\s+)?(?:id|number|code|"
                r"address|date|email|value|price|name|format|sku|reference|one|ones)\b"),
             guard_if=True,
             needs=('look', 'seem', 'appear', 'sound', 'real', 'valid', 'genuine', 'existing')),
    TextRule("oddly / strangely lists, says or shows", "problem",
             _r(r"\b(?:oddly|strangely|weirdly|bizarrely|inexplicably)\s+"
                r"(?:\w+\s+)?(?:lists?|listed|shows?|showed|says?|said|returns?|returned|reports?|"
                r"reported|gives?|gave|has|had|marks?|marked|records?|recorded|labels?|label(?:l)?ed|"
                r"states?|stated|indicates?|indicated|puts?|sets?|came\s+back|comes\s+back)\b|"
                r"\b(?:looks?|seems?|appears?|that's|that’s|that\s+is|this\s+is)\s+(?:very\s+|"
                r"quite\s+|rather\s+|highly\s+|a\s+bit\s+)?unusual\b|\baccording\s+to\s+(?:the\s+|your\s+)?"
                r"(?:tool|system|api|database|records?|calendar|app|lookup|search|results?|data|"
                r"response|listing|booking\s+system)\b[^?!]{0,80}[–—]\s*(?:very\s+|quite\s+|"
                r"rather\s+|highly\s+)?(?:unusual|odd|strange|weird|suspicious)\b"),
             guard_if=True, guard_negation=True,
             needs=('oddly', 'strangely', 'weirdly', 'bizarrely', 'inexplicably', 'unusual',
                    'odd', 'strange', 'weird', 'suspicious')),
    TextRule("only N of the N asked for came back", "problem",
             _r(rf"\bonly\s+(?:returned|gave|sent|brought\s+back|came\s+back\s+with|got|loaded|"
                rf"retrieved|fetched)\s+(?:back\s+|me\s+|us\s+)?{_NUM}\s+(?:of|out\s+of)\b|"
                r"\b(?:returned|gave|sent|came\s+back\s+with|got|loaded|retrieved|"
                rf"fetched)\s+(?:back\s+|me\s+|us\s+)?(?:only|just)\s+{_NUM}\s+(?:of|out\s+of)\b|"
                rf"\b{_NUM}\s+(?:of|out\s+of)\s+the\s+{_NUM}\s+(?:[\w-]+\s+)?(?:you|I|we|the\s+user)\s+"
                r"(?:asked|requested|wanted|needed)\b"),
             needs=('only', 'just', 'asked', 'requested', 'wanted', 'needed')),
    TextRule("the calendar / app / system thinks or swears", "problem",
             _r(r"\b(?:calendar|app|forecast|tracker|tracking|map|inventory|catalog(?:ue)?|lookup|"
                r"search|geocoder|result|response|data|page|listing|site|website|record|records|"
                r"chart|log|profile|database|system|tool|api|service|server|endpoint|portal|"
                r"backend|feed|sensor|scheduler|booking\s+engine)\s+(?:\w+\s+)?(?:thinks|claims|"
                r"insists|swears|believes|reckons|is\s+convinced|seems\s+to\s+think)\b"),
             guard_if=True,
             needs=('thinks', 'claims', 'insists', 'swears', 'believes', 'reckons', 'convinced',
                    'think')),
    TextRule("came back as an error / gave garbage", "problem",
             _r(r"\b(?:came|comes|coming)\s+back\s+(?:as|with)\s+(?:an?\s+)?(?:(?!no\b|zero\b)\w+\s+)?"
                r"(?:error|exception|failure|garbage|junk|gibberish|nonsense|rubbish)\b"
                r"(?!\s+(?:margin|rate|bars?)\b)|\b(?:gave|gives|"
                r"giving|returned|returns|returning|sent|spat\s+out|produced|got|get)\s+(?:me\s+|us\s+|"
                r"back\s+)?(?:\w+\s+)?(?:garbage|junk|gibberish|nonsense|rubbish)\b|"
                r"\b(?:reported|reports|responded\s+with|answered\s+with|came\s+back\s+with|"
                r"sent\s+back|replied\s+with|failing\s+with|failed\s+with|throws?)\s+(?:an?\s+)?"
                r"(?:HTTP\s+)?(?:400|401|403|404|408|409|422|429|500|502|503|504)s?\b"
                r"(?=\s*(?:[.,;:!)—–-]|$|error|status|response|code|for|on|again|and|when|from|"
                r"back|too|so|but|instead))|"
                r"\b(?:tool|api|call|service|server|lookup|search|request|query|system|fetch|"
                r"endpoint)\s+err(?:or)?\s*:|^\W*err\s*:"),
             guard_negation=True,
             needs=('back', 'garbage', 'junk', 'gibberish', 'nonsense', 'rubbish', '40', '42',
                    '50', 'err')),
    TextRule("stamped with yesterday's date, not today's", "problem",
             _r(r"(?:\b(?:stamped|dated|timestamp\w*|as\s+of|updated|refreshed|generated|cached)|"
                r"\b(?:data|figures|prices|rates|results|forecast|numbers|values|readings|list|"
                r"report|record|records)\s+(?:is|are|was|were)\s+(?:for|from))\b"
                r"[^.;?!]{1,40}?,\s+not\s+(?:for\s+|from\s+)?(?:today|tomorrow|yesterday|tonight|"
                r"this\s+(?:week|month|year|morning|evening)|next|last|the\s+current|the\s+latest)"
                r"(?:'s|’s)?\b"),
             needs=('not',)),
    TextRule("not one I recognise / not usable / impossible", "problem",
             _r(r"\b(?:isn't|is\s+not|aren't|are\s+not|wasn't|was\s+not)\s+(?:one|an?\s+\w+|"
                r"something|anything|any\s+\w+)\s+(?:that\s+)?(?:I|we)\s+(?:can\s+)?recogni[sz]e\b|"
                r"\b(?:I|we)\s+(?:don't|do\s+not|can't|cannot)\s+(?:\w+\s+)?recogni[sz]e\s+(?:this|"
                r"that|the|these|those|it)\b|"
                r"\b(?:result|results|data|response|output|record|value|values|figure|figures|"
                r"number|numbers|reading|it|this|that|these|they)\s+(?:is|are|was|were|seems?|"
                r"looks?)\s+(?:\w+\s+)?(?:not\s+usable|unusable|useless|untrustworthy|worthless|"
                r"not\s+trustworthy)\b|\b(?:result|results|data|response|output|record|value|values|figure|"
                r"figures|number|numbers|reading|it|this|that|these|they)\s+(?:isn't|isn’t|aren't|"
                r"aren’t|wasn't|wasn’t|weren't|weren’t)\s+(?:\w+\s+)?(?:usable|trustworthy)\b|"
                r"\b(?:that's|that’s|thats|that\s+is|this\s+is|which\s+is|it's|it’s|it\s+is)\s+"
                r"(?:\w+\s+)?impossible\b(?!\s+to\b)|\ban\s+impossible\s+(?:value|reading|date|"
                r"time|number|figure|price|result|age|temperature|dose)\b"),
             guard_if=True,
             needs=('recogni', 'usable', 'useless', 'trustworthy', 'worthless', 'impossible')),
    TextRule("the search was interrupted", "problem",
             _r(r"\b(?:search|request|call|query|lookup|connection|download|upload|response|"
                r"stream|transfer|sync|fetch|results?)\s+(?:was|were|got|has\s+been|had\s+been)\s+"
                r"(?:\w+\s+)?(?:interrupted|aborted|cancel(?:l)?ed|dropped|cut\s+off)\b"),
             needs=('interrupted', 'aborted', 'cancel', 'dropped', 'cut off')),
    TextRule("kept failing / is missing / not what you wanted / my typo", "problem",
             _r(r"\b(?:kept|keeps|keep)\s+(?:on\s+)?(?:failing|erroring|crashing|timing\s+out|"
                r"returning\s+(?:an?\s+)?errors?|throwing\s+errors?|rejecting|refusing|dropping|"
                r"bouncing|breaking)\b|"
                r"\b(?:seems?|appears?|looks?)\s+to\s+be\s+missing\b|\b(?:list|result|results|"
                r"response|data|forecast|table|record|page|output|schedule)\s+(?:is|are)\s+missing\s+"
                r"(?:the|some|a|an|one|two|several|\d+)\b|"
                r"\b(?:can't|can’t|cannot|couldn't|could\s+not)\s+be\s+"
                r"(?:\w+\s+)?what\s+(?:you|the\s+user)\s+(?:\w+\s+)?(?:wanted|meant|asked|need|needed|"
                r"expected|want)\b|"
                r"\bmy\s+typo\b|\btypo\s+in\s+(?:my|the)\s+(?:query|call|request|search|input|"
                r"arguments?)\b|"
                r"[;—–,]\s+(?:but\s+)?you(?:'re|’re|\s+are)\s+(?:in|at|from|based\s+in|staying\s+in)"
                r"\s+(?-i:[A-Z])|"
                r"\b(?:but|yet|while|whereas)\s+(?:the|your|its|this|that)\s+(?:[\w'’-]+\s+){0,3}"
                r"(?:is|are|was|were)\s+(?:listed|marked|shown|recorded|flagged|logged)\s+as\b"),
             guard_if=True, guard_negation=True,
             needs=('kept', 'keep', 'missing', 'sure', 'be ', 'typo', 'you', 'listed', 'marked',
                    'shown', 'recorded', 'flagged', 'logged')),
    TextRule("(es/pt/fr/it/de/ja/zh) kept failing / seems to be missing / says X but Y shows",
             "problem",
             _r(r"\b(?:seguía|sigue)\s+(?:fallando|dando\s+error)|\bcontinua(?:va)?\s+(?:a\s+)?"
                r"(?:falhar|falhando|dando\s+erro|fallire|dare\s+errore)|"
                r"\b(?:continuait|continue)\s+(?:d'|à\s+)(?:échouer|planter)|"
                r"\béchouait\s+(?:sans\s+cesse|à\s+chaque\s+fois)|"
                r"\b(?:schlug|scheiterte|schlägt|scheitert)\s+(?:\w+\s+)?(?:immer\s+wieder|"
                r"ständig|jedes\s+Mal)|何度も(?:失敗|エラー)|失敗し続け|エラーが続|一直(?:失败|失敗|报错|報錯|"
                r"超时|超時)|反复失败|反復失敗|"
                r"\b(?:parece|parecen|semble|semblent|sembra|sembrano|scheint|scheinen)\s+(?:\w+\s+)?"
                r"(?:faltar|manquer|mancare|zu\s+fehlen)\b|"
                r"\b(?:dice|indica|muestra|diz|indica|mostra|dit|indique|montre|sagt|zeigt|meldet)\b"
                r"[^.?!]{0,80}\b(?:pero|mas|mais|ma|però|aber|doch)\s+[^.?!]{0,40}\b(?:figura|"
                r"aparece|consta|figure|apparaît|risulta|compare|steht|erscheint)\b"),
             guard_negation=True,
             needs=('seguía', 'sigue', 'continua', 'continue', 'échouait', 'schlug', 'scheiter',
                    'schlägt', '何度も', '失敗し続け', 'エラーが続',
                    '一直', '反复', '反復', 'parece',
                    'semble', 'sembra', 'scheint', 'scheinen', 'figura', 'aparece', 'consta',
                    'figure', 'apparaît', 'risulta', 'compare', 'steht', 'erscheint')),
    TextRule("ignored my filter / swapped values / error of the tool / only covers N but you asked",
             "problem",
             _r(r"\b(?:ignored|dropped|overrode|overrid(?:den|ing)|disregarded|skipped)\s+(?:my|the|our|"
                r"your)\s+(?:\w+\s+)?(?:filter|cap|limit|parameter|constraint|date|argument|setting|"
                r"criteria|criterion|option|range|radius|unit|units|currency)\b|\b(?:filter|cap|limit|"
                r"parameter|constraint|argument|setting|criteria|option)\s+(?:was|were|got|must\s+have"
                r"\s+been|has\s+been|seems\s+to\s+have\s+been)\s+(?:\w+\s+)?(?:ignored|dropped|"
                r"overridden|lost)\b|"
                r"\b(?:seem|seems|look|looks|appear|appears|got|probably|must\s+have\s+been|were|are)\s+"
                r"(?:to\s+(?:be|have\s+been)\s+)?(?:swapped|transposed|switched\s+around|mixed\s+up|"
                r"flipped)\b|\b(?:dates|values|numbers|times|fields|columns|digits|figures|readings)\s+"
                r"(?:seem|look|appear|got|must\s+have\s+been)\s+(?:to\s+(?:be|have\s+been)\s+)?"
                r"(?:reversed|inverted)\b|"
                r"\b(?:error|glitch|bug|mistake)\s+(?:in|of|from|on)\s+(?:the|their|its)\s+(?:\w+\s+)?"
                r"(?:tool|system|api|database|service|server|catalog(?:ue)?|feed|backend|lookup|"
                r"search|endpoint)\b|"
                r"\bonly\s+(?:covers?|covered|has|had|includes?|included|lists?|listed|shows?|showed|"
                r"returned|returns|gave|gives)\b[^.?!]{0,40}\b(?:and|but|while|whereas)\s+(?:you|the\s+"
                r"user)\s+(?:\w+\s+)?(?:asked|wanted|requested|need|needed)\b|"
                r"\b(?:couldn't|could\s+not|can't|cannot|wasn't\s+able\s+to|was\s+unable\s+to|"
                r"unable\s+to)\s+(?:reach|connect\s+to|access|contact)\s+(?:the\s+|your\s+)?(?:\w+\s+)?"
                r"(?:database|server|service|api|tool|system|endpoint|calendar|site|website|page|"
                r"portal|backend)\b|\bconnection\s+(?:refused|reset|failed|lost|dropped)\b"),
             guard_if=True, guard_negation=True,
             needs=('ignored', 'dropped', 'overr', 'disregarded', 'skipped', 'lost', 'swapped',
                    'transposed', 'switched', 'mixed up', 'flipped', 'error', 'glitch', 'bug',
                    'mistake', 'only', 'reach', 'connect', 'access', 'contact', 'reversed',
                    'inverted')),
    TextRule("(es/pt/fr/it/de/ja/zh) swapped values / error of the tool", "problem",
             _r(r"\b(?:parece[mn]?|están|estão|son|são|semble(?:nt)?|sont|sembra(?:no)?|sono|"
                r"scheinen|sind|wurden)\s+(?:(?:estar|ser|être|essere)\s+)?(?:trocad[oa]s|"
                r"intercambiad[oa]s|invertid[oa]s|inversé(?:e?s)?|échangé(?:e?s)?|scambiat[ie]|"
                r"invertit[ie]|vertauscht)\b|"
                r"\b(?:error|erreur|errore|erro)\s+(?:de\s+la|de\s+l'|del|della|dello|do|da|des|du|"
                r"dell')\s*(?:herramienta|outil|strumento|ferramenta|sistema|système|api|servicio|"
                r"service|servizio|serviço|catálogo|catalogue|catalogo|base)|"
                r"\bfehler\s+(?:im|des|in\s+der|der)\s+(?:\w+\s+)?(?:tools?|systems?|dienstes|"
                r"datenbank|katalogs?|api)|入れ替わって|弄反|颠倒了|顛倒了|搞混了"),
             needs=('trocad', 'intercambiad', 'invertid', 'inversé', 'échangé', 'scambiat',
                    'invertit', 'vertauscht', 'error', 'erreur', 'errore', 'erro', 'fehler',
                    '入れ替わ', '弄反', '颠倒', '顛倒', '搞混')),
    TextRule("(es/pt/fr/it/de/ja/zh) leaves out what you asked / looks old / not credible",
             "problem",
             _r(r"\bno\s+(?:incluye|incluyen|contiene|contienen|trae|traen|cubre|cubren|muestra|"
                r"muestran)\b[^.?!]{0,40}\bque\s+(?:usted\s+)?(?:pediste|pidió|solicitaste|solicitó|"
                r"pedías|querías|quería)\b|\bnão\s+(?:inclui|incluem|contém|contêm|traz|trazem|"
                r"cobre|cobrem|mostra|mostram)\b[^.?!]{0,40}\bque\s+(?:você\s+)?(?:pediu|solicitou|"
                r"queria)\b|\bne\s+(?:contient|contiennent|comprend|comprennent|couvre|couvrent|"
                r"inclut|incluent|montre|montrent)\s+pas\b[^.?!]{0,40}\bque\s+vous\s+(?:avez\s+"
                r"demandé|demandiez|vouliez)|\bnon\s+(?:include|includono|contiene|contengono|copre|"
                r"coprono|mostra|mostrano)\b[^.?!]{0,40}\bche\s+(?:hai|avevi)\s+(?:chiesto|"
                r"richiesto)|\b(?:enthält|enthalten|umfasst|umfassen|zeigt|zeigen)\s+(?:\w+\s+){0,3}"
                r"nicht\b[^.?!]{0,40}\b(?:gefragt|angefragt|gewünscht|wollten)\b|"
                r"(?:ご依頼|ご指定|お尋ね|ご希望)[^。]{0,20}(?:含まれていません|含まれていない|入っていません)|"
                r"(?:没有|沒有|不)(?:包含|包括)(?:您|你)[^。]{0,6}(?:要|问|問)|"
                r"\b(?:parece[mn]?|sembra(?:no)?|semble(?:nt)?|scheinen|scheint|wirk(?:t|en))\s+"
                r"(?:\w+\s+)?(?:viej[oa]s?|antigu[oa]s?|velh[oa]s?|vecch[io]|vecchie|anciens?|"
                r"anciennes?|périmé\w*|alt|älter)\b|"
                r"\b(?:no|não|ne|non|nicht)\s+(?:es|son|é|são|est|sont|è|sono|ist|sind|parece|"
                r"semble|sembra|scheint)\s+(?:pas\s+)?(?:\w+\s+)?(?:cre[íi]ble\w*|crível|credível|"
                r"verosímil|verossímil|vraisemblable|crédible|credibil\w*|glaubwürdig|glaubhaft)|"
                r"\bunglaubwürdig|\binverosímil|不可信|不太可信|难以置信|難以置信"),
             guard_negation=True,
             needs=('no ', 'não', 'ne ', 'non', 'enthält', 'enthalten', 'umfasst', 'umfassen',
                    'zeigt', 'zeigen', 'ご依頼', 'ご指定', 'お尋ね', 'ご希望', '包含', '包括',
                    'parece', 'sembra', 'semble', 'schein', 'wirk', 'unglaub', 'inveros', '可信',
                    '置信')),
    TextRule("not credible / only got the first page / from the cached page", "problem",
             _r(r"\b(?:isn't|is\s+not|isnt|not|hardly|aren't|are\s+not)\s+(?:very\s+|really\s+)?"
                r"(?:credible|believable)\b|\bonly\s+(?:got|received|fetched|loaded|retrieved|saw)\s+"
                r"(?:back\s+)?(?:the\s+)?(?:first|one|1|a\s+single|part|half)\s+(?:\w+\s+)?(?:page|"
                r"pages|batch|part|half|chunk|result|results|of)\b|\bfrom\s+(?:the\s+|a\s+)?cached\b|"
                r"\b(?:is|are|was|were)\s+(?:a\s+|the\s+)?cached\s+(?:copy|page|version|result|results|"
                r"data|response|value|figure|snapshot)\b|\bswitch(?:ing)?\s+to\s+(?:the\s+|another\s+|a\s+different\s+)?"
                r"[\w-]+\s+(?:tool|api|source|service|endpoint)\b"),
             guard_if=True,
             needs=('credible', 'believable', 'only', 'cached', 'switch')),
    TextRule("results for a different search / error messages / contradicts itself", "problem",
             _r(r"\b(?:results?|data|records?|response|information|forecast|entry|entries|page|"
                r"listing|listings)\s+(?:for|from|of)\s+(?:a|an)\s+(?:different|another|other)\s+"
                r"(?:\w+\s+)?(?:search|query|request|product|category|city|patient|person|date|"
                r"account|user|customer|store|location|drug|item)\b|"
                r"\bcontredi\w*|\bcontradiz\w*|"
                r"\b(?:liefert|lieferte|gibt|gab|zeigt|zeigte|bekomme|bekam|erhalte|erhielt|nur)\b"
                r"[^.?!]{0,40}\bfehlermeldung|\b(?:devuelve|devolvió|da|dio|muestra|mostró|recibo|"
                r"recibí|retorna|retornou|dá|deu|mostra|mostrou|recebo|recebi|renvoie|renvoyé|affiche|"
                r"donne|reçois|reçu|restituisce|restituito|dà|dato|ricevo|ricevuto)\b[^.?!]{0,40}"
                r"\b(?:mensajes?\s+de\s+error|mensage(?:m|ns)\s+de\s+erro|messages?\s+d'erreur|"
                r"messaggi?\s+di\s+errore)|古い(?:データ|情報|結果)を返|(?:データ|情報|結果)が古い"),
             guard_negation=True,
             needs=('different', 'another', 'other', 'contredi', 'contradiz', 'fehlermeldung',
                    'error', 'erro', 'erreur', 'errore', '古い')),
    TextRule("empty body / went down / you surely meant / the system says X but Y is in Z",
             "problem",
             _r(r"\b(?:returned|gave|sent|came\s+back\s+with|got)\s+(?:back\s+)?(?:an?\s+)?(?:empty|"
                r"blank|null)\s+(?:body|response|payload|reply|json|page)\b|\b(?:empty|blank|null)\s+"
                r"(?:response|payload)\s+from\b|"
                r"\b(?:api|tool|service|server|system|sistema|herramienta|ferramenta|outil|système|"
                r"strumento|servicio|serviço|servizio|dienst|servidor|serveur|server)\b[^.?!]{0,30}\b(?:"
                r"caiu|está\s+fora\s+do\s+ar|se\s+cayó|está\s+caíd[oa]|est\s+tombée?|est\s+en\s+panne|"
                r"a\s+planté|è\s+cadut[oa]|è\s+giù|è\s+andat[oa]\s+in\s+crash|ist\s+abgestürzt|"
                r"ist\s+ausgefallen|went\s+down|crashed)\b|\bl'outil\s+a\s+planté|"
                r"\bSie\s+meinten\s+(?:sicher|bestimmt|wohl|vermutlich|eher)\b|\bseguramente\s+"
                r"(?:te\s+referías|querías\s+decir|quisiste\s+decir)|\bvocê\s+(?:provavelmente|"
                r"certamente)\s+quis\s+dizer|\bvous\s+vouliez\s+(?:sûrement|sans\s+doute|"
                r"probablement)\s+dire|\bprobabilmente\s+intendevi|"
                r"\b(?:tool|system|api|app|database|record|service|tracker|sistema|herramienta|"
                r"ferramenta|outil|système|strumento|app|aplicación|aplicativo|application|registro|"
                r"dossier|datenbank)\s+(?:\w+\s+)?(?:says?|said|shows?|showed|claims?|reports?|"
                r"reported|dice|indica|muestra|diz|mostra|dit|indique|montre|sagt|zeigt|meldet)\b"
                r"[^.?!]{0,80}\b(?:but|pero|mas|mais|ma|però|aber|doch)\s+(?:the|your|el|la|los|las|o|a|"
                r"os|as|le|les|l'|il|lo|i|gli|der|die|das)\s*[\w'’-]+\s+(?:is|are|was|were|es|está|"
                r"é|est|è|ist|son|são|sont|sono|sind)\s+(?:in|at|a|à|en|em|in|for|para|pour|per|für)"
                r"\s+(?-i:[A-Z0-9])"),
             guard_negation=True,
             needs=('empty', 'blank', 'null', 'caiu', 'fora do ar', 'cayó', 'caíd', 'tombé',
                    'panne', 'planté', 'cadut', 'giù', 'crash', 'abgestürzt', 'ausgefallen',
                    'went down', 'crashed', 'meinten', 'seguramente', 'quis dizer', 'vouliez',
                    'intendevi', 'but', 'pero', 'mas', 'mais', 'ma ', 'però', 'aber', 'doch')),
    TextRule("a different one after a dash / far above any normal range / stops at page N",
             "problem",
             _r(rf"[—–;(]\s*(?:a|an)\s+(?:entirely\s+|completely\s+)?(?:different|other)\s+"
                rf"(?:\w+\s+)?(?:{_ENTITY}|flight|hotel|search|drug|clinic|store)\b|"
                r"\b(?:far|way|well)\s+(?:above|below|outside|beyond)\s+any\s+(?:normal|plausible|"
                r"possible|usual|safe|realistic)\s+(?:range|dose|value|limit|level)\b|"
                r"\b(?:results?|list|response|output|data|listing)\s+(?:stops?|stopped|ends?|ended|"
                r"cuts?\s+off)\s+(?:at|after)\s+(?:page|item|row|entry|result)\s+\d|"
                r"\b(?:that|which|what)\s+(?:I|we)\s+(?:couldn't|could\s+not|can't|cannot)\s+see\b|"
                r"\b(?:units?|time\s?zone|currency|offset)\s+(?:were|was|is|are)\s+missing\b|"
                r"\b(?:can't|cannot|couldn't|could\s+not)\s+(?:possibly\s+)?be\s+the\s+same\s+\w+|"
                r"\b(?:returned|given|renvoyée?s?|retournée?s?|devuelt[oa]s?|retornad[oa]s?|"
                r"restituit[oa]|zurückgegebene\w*|gelieferte\w*)\b[^.?!]{0,50}\b(?:n'existe\s+pas|"
                r"no\s+existe|não\s+existe|non\s+esiste|existiert\s+nicht|doesn't\s+exist|does\s+not\s+"
                r"exist)|(?:接口|工具|系统|系統|API)(?:说|說|显示|顯示|返回)[^。]{0,40}(?:但|可是|然而)"
                r"[^。]{0,20}(?:写的是|寫的是|显示|顯示|说|說)"),
             guard_if=True,
             needs=('different', 'other', 'above', 'below', 'outside', 'beyond', 'stop', 'end',
                    'cut', 'see', 'missing', 'same', 'exist', '但', '可是', '然而')),
    # -- RETRY: it redoes the call ----------------------------------------------------------
    TextRule("again / retry / instead", "retry",
             _r(r"\b(?:again(?!,?\s+(?:but\s+)?(?:this\s+time\s+)?for\s+(?:the\s+)?(?:next|another|"
                r"other|second|third|following|a\s+new|new)\b)|retry|retrying|re-?query|"
                r"re-?querying|re-?run|re-?runn?ing|re-?issue|re-?issuing|once more|instead)\b|"
                r"\bre-?do(?:ing)?\s+(?:it|that|this|with|the\s+(?:call|search|query|lookup|"
                r"request))\b|"
                r"\btr(?:y|ying)\s+(?:a|an|the)\s+(?:\w+\s+)?(?:shorter|longer|different|broader|"
                r"narrower|simpler|wider|more\s+specific|alternative|corrected|fixed|generic|full|"
                r"official|exact|brand)\s+(?:\w+\s+)?"
                r"(?:query|search|term|keywords?|spelling|format|wording|phrasing|name|id|"
                r"parameters?|input|request)\b|\b(?:correct|correcting|fix|fixing)\s+(?:that|this|it|the\s+call|"
                r"my\s+call|the\s+typo|my\s+typo)\b|"
                rf"\bwith\s+the\s+(?:right|correct|proper|valid)\s+(?:\w+\s+)?"
                rf"(?:{_ENTITY}|arguments?|parameters?|inputs?)\b"),
             needs=('again', 'retry', 'requer', 're-quer', 'rerun', 're-run', 'reissue',
                    're-issue', 'once more', 'instead', 'correct', 'fix', 'right', 'proper',
                    'valid', 'try', 'trying', 'redo', 're-do')),
    # -- CHECK: it checks the problem --------------------------------------------------------
    TextRule("verify / confirm / double-check", "check",
             _r(r"\b(?:verify|confirm|double-check|double check|cross-check|make sure|"
                r"check\s+(?:whether|if|that|which)|to\s+see\s+(?:which|whether|if))\b|"
                rf"\bfind\s+the\s+(?:right|correct|actual)\s+{_ENTITY}\b"),
             needs=('verify', 'confirm', 'double', 'cross-check', 'make sure', 'check', 'to see',
                    'find')),
    TextRule("look it up / compare / consult another source", "check",
             _r(r"^(?!.*\b(?:mov(?:e|ing)\s+on|carry(?:ing)?\s+on|meantime|meanwhile)\b).*?"
                r"\b(?:check(?:s|ing)?|cross-?check\w*|double-?check\w*|re-?check\w*|"
                r"compar(?:e|es|ing)|consult(?:s|ing)?|validat(?:e|es|ing)|confirm(?:s|ing)|"
                r"verif(?:y|ies|ying)|look(?:s|ing)?\s+(?:it|that|this|them)\s+up|"
                r"look(?:s|ing)?\s+up|look(?:s|ing)?\s+(?:at|in|into)|pull(?:s|ing)?\s+up|"
                r"see\s+(?:what|which|whether|if)|"
                r"tr(?:y|ying)\s+(?:the\s+)?[\w-]+\s+(?:tool|api|service|endpoint|lookup|"
                r"source|database|feed|provider|site|board)|fall(?:ing)?\s+back\s+(?:on|to)|"
                r"ask(?:ing)?\s+(?:another|a\s+second|a\s+different)\s+(?:provider|source|"
                r"service|api|tool))\b"),
             needs=('check', 'compar', 'consult', 'validat', 'confirm', 'verif', 'look',
                    'pull', 'see ', 'try', 'trying', 'fall', 'ask')),
    TextRule("(es/pt/fr/it/de/ja/zh) look it up / compare / consult another source", "check",
             _r(r"\b(?:consulto|reviso|cotejo|contrasto|comprobaré|verificaré|confiro|checo|"
                r"vou\s+(?:verificar|conferir|checar|consultar|comparar)|voy\s+a\s+(?:comprobar|"
                r"verificar|revisar|consultar|comparar|contrastar)|je\s+(?:consulte|contrôle|"
                r"compare|recoupe|vais\s+(?:vérifier|consulter|comparer|contrôler))|recouper|"
                r"ricontrollo|consulto|confronto|verifico|vado\s+a\s+(?:controllare|verificare)|"
                r"kontrolliere|vergleiche|checke|gleiche\s+(?:\w+\s+){0,4}ab|(?:sehe|schaue|"
                r"schau)\s+(?:\w+\s+){0,4}nach)\b|"
                r"\b(?:otra|outra|une\s+autre|un'altra|einer\s+anderen|einer\s+zweiten)\s+"
                r"(?:fuente|fonte|source|quelle)\b|(?:换|換)(?:一个|一個|个|個)?(?:工具|接口|介面|数据源|"
                r"資料來源|来源|來源)|別のツール|他のツール|別のソース|照合|調べ|確かめ|核查|对照|對照|检查|檢查|"
                r"验证|驗證|确认|確認|查一下|查看"),
             needs=('consult', 'reviso', 'cotejo', 'contrasto', 'comprob', 'verific', 'confiro',
                    'checo', 'vou', 'voy', 'je ', 'recoup', 'ricontrollo', 'confronto', 'vado',
                    'kontrolliere', 'vergleiche', 'checke', 'gleiche', 'sehe', 'schau',
                    'otra', 'outra', 'autre', "un'altra", 'anderen', 'zweiten', '换', '換',
                    '別のツール', '他のツール', '別のソース',
                    '照合', '調べ', '確かめ', '核查', '对照', '對照', '检查', '檢查', '验证',
                    '驗證', '确认', '確認', '查一下', '查看')),
    # -- CONTINUE: it goes on despite the problem (so a same-tool call is the next step) ---
    TextRule("continue anyway", "continue",
             _r(r"\b(?:continue|proceed|carry on|move on|moving on|anyway|regardless|nevertheless|"
                r"skip(?:ping)?\s+(?:it|that|this|them|this\s+one|that\s+one))\b|"
                r"\b(?:(?:lo|la)\s+(?:omito|salto)|sigo\s+con|continúo|vou\s+pular|pulo\s+(?:esta|este)|"
                r"continuo\s+com|je\s+(?:passe|continue|poursuis)|proseguo|vado\s+avanti|"
                r"(?:lo|la)\s+salto|überspringe|mache\s+(?:\w+\s+)?weiter|fahre\s+(?:\w+\s+)?fort)\b|"
                r"スキップ|飛ばし|跳过|跳過"),
             needs=('continue', 'proceed', 'carry on', 'move on', 'moving on', 'anyway',
                    'regardless', 'nevertheless', 'skip', 'omito', 'salto', 'sigo', 'continúo',
                    'pular', 'pulo', 'continuo', 'je ', 'proseguo', 'avanti', 'überspringe',
                    'weiter', 'fahre', 'スキップ', '飛ばし', '跳过', '跳過')),
    # -- QUESTION: it asks the user to confirm or clarify ----------------------------------
    TextRule("could you confirm / clarify / provide", "question",
             _r(r"\b(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:confirm|clarify|"
                r"double-check|double check|verify|check|specify|provide|re-?enter|resend|"
                r"tell me which|share|send|give me)\b"),
             needs=('you',)),
    TextRule("please confirm / specify / provide", "question",
             _r(r"\bplease\s+(?:confirm|clarify|specify|provide|give|enter|share|choose|select)\b"),
             needs=('please',)),
    TextRule("please double-check / re-enter (after a named problem)", "question",
             _r(r"\bplease\s+(?:double-?check|re-?check|re-?enter|re-?type)\b"),
             with_problem=True,
             needs=('please',)),
    TextRule("did you mean / which X did you mean / is that correct", "question",
             _r(r"\b(?:did|do)\s+you\s+mean\b|\bwhich\s+(?:\w+\s+){1,2}(?:did|do)\s+you\s+mean\b|"
                r"\b(?:is|was)\s+(?:that|this)\s+(?:correct|right|what you meant)\s*\?|"
                r"\bare\s+you\s+(?:asking|referring)\s+(?:about|to)\b|\bwhich\s+(?:one|of\s+(?:them|"
                r"these|the\s+two))\s+(?:did\s+you\s+mean|do\s+you\s+mean|should\s+I\s+use|is\s+"
                r"(?:it|correct|right))\b|\bwhich\s+\w+\s+is\s+(?:it|correct|right)\s*\?"),
             needs=('mean', 'correct', 'right', 'asking', 'referring', 'which')),
    TextRule("a choice put to the user after a named problem", "question",
             _r(r"\b(?:should|shall)\s+I\b[^.?!]*\?|\b(?:do|would)\s+you\s+(?:want|prefer|"
                r"like)\b[^.?!]*\bor\b[^.?!]*\?|\bwhich\s+(?:\w+\s+){0,2}(?:do|did|would|should|are|"
                r"were|is)\s+(?:you|I)\b[^.?!]*\?|\bor\s+[^.?!,;]{1,40}\?|\b(?:is|was)\s+(?:this|that|it)\s+the\s+(?:\w+\s+)?one\b"
                r"[^.?!]*\?|\bwhich\s+(?:one\s+)?is\s+(?:correct|right)\b|"
                r"\b(?:can|could)\s+you\s+(?:tell|let)\s+me\b|\bor\s+did\s+you\s+(?:mean|"
                r"want)\b|\bdid\s+you\s+(?:maybe|perhaps|possibly|accidentally|actually)\b|"
                r",\s+(?:right|correct)\s*\?"),
             with_problem=True,
             needs=('should', 'shall', 'you', 'which', 'one', 'or')),
    TextRule("(es/pt/fr/it/de/ja/zh) a choice put to the user after a named problem",
             "question",
             _r(r"¿\s*(?:debo|quieres\s+que|quiere\s+que|prefieres|prefiere|cuál|cual|"
                r"es\s+(?:este|esta|ese|esa|correcto))|\b(?:devo|quer\s+que\s+eu|prefere|qual|"
                r"dois-je|faut-il|voulez-vous\s+que|préférez-vous|lequel|laquelle|vuoi\s+che|"
                r"preferisci|quale|soll\s+ich|möchten\s+Sie|welche[nrs]?|meinten\s+Sie)\b"
                r"[^.?!]*\?|(?:しますか|しましょうか|どちら|どれ|でしょうか|ですか)[^。]*？|"
                r"(?:要不要|是否|哪(?:个|個|一)|吗|嗎)[^。]*？"),
             with_problem=True,
             needs=('debo', 'quier', 'prefier', 'cuál', 'cual', 'es ', 'devo', 'quer', 'prefere',
                    'qual', 'dois', 'faut', 'voulez', 'préfér', 'lequel', 'laquelle', 'vuoi',
                    'preferisci', 'soll', 'möchten', 'welche', 'meinten', 'しますか',
                    'しましょうか', 'どちら', 'どれ', 'でしょうか', 'ですか', '要不要', '是否',
                    '哪', '吗', '嗎')),
    # -- DECLINE: it declines to give the answer --------------------------------------------
    TextRule("cannot give / answer / determine", "decline",
             _r(r"\b(?:can't|cannot|can not|unable to|not able to|won't|will not|wasn't able to|"
                r"was not able to|couldn't|could not|am not going to|won't be able to|"
                r"will not be able to)"
                r"\s+(?:reliably\s+|responsibly\s+|"
                r"accurately\s+)?(?:give|provide|tell|answer|determine|confirm|say|quote|fulfil|"
                r"fulfill|complete|get reliable|look\s+(?:that|it|this)\s+up|retrieve|fetch|share|"
                r"load)\b"),
             needs=("can't", 'cannot', 'can not', 'unable', 'able', "won't", "couldn't",
                    'could not', 'going to')),
    TextRule("could not be completed", "decline",
             _r(r"\b(?:request|task|question)\s+(?:could\s+not|couldn't|cannot|can't)\s+be\s+"
                r"(?:completed|answered|fulfilled)\b"),
             needs=('could not', "couldn't", 'cannot', "can't")),
    TextRule("will not guess", "decline",
             _r(r"\b(?:won't|will not|would rather not|'d rather not|don't want to|do not want to|"
                r"am not going to|not going to|refuse to)\s+(?:guess|speculate|answer|"
                r"give you an?\s+"
                r"(?:possibly|potentially|number|figure|value|answer))\b|"
                r"\b(?:don't|do not)\s+have\s+enough\s+(?:\w+\s+)?(?:information|data)\s+to\s+"
                r"(?:answer|say|tell|give)\b"),
             needs=('guess', 'speculate', 'answer', 'give you', 'enough')),
    TextRule("I won't use / quote / summarise it (after a named problem)", "decline",
             _r(r"\b(?:I|we)(?:'d|’d|\s+would|'m|’m|\s+am|'ll|’ll|\s+will)?\s+(?:\w+\s+)?(?:won't|"
                r"won’t|wont|will\s+not|rather\s+not|don't\s+want\s+to|don’t\s+want\s+to|"
                r"do\s+not\s+want\s+to|not\s+going\s+to|prefer\s+not\s+to|refuse\s+to)\s+"
                r"(?:\w+\s+)?(?:use|summari[sz]e|quote|give|say|report|recommend|rely|state|"
                r"estimate|pass\s+(?:it|that|them|this)\s+on|present|suggest|calculate|answer|"
                r"guess|speculate)\b|"
                r"\b(?:can't|can’t|cant|cannot|can\s+not|won't|won’t|unable\s+to|rather\s+not)\s+"
                r"(?:\w+\s+){1,4}(?:from|based\s+on|on\s+the\s+basis\s+of|using|with)\s+(?:this|"
                r"that|these|those)\s+(?:\w+\s+)?(?:result|results|data|value|values|numbers|"
                r"figures|reading|readings|record|response|output|entry)\b|"
                r"^\W*(?:cant|cannot|can't|can’t|couldnt|could\s+not|unable\s+to)\s+(?:answer|tell|"
                r"say|give|confirm|provide|help\s+with\s+(?:this|that))\b"),
             with_problem=True,
             needs=("won't", 'won’t', 'wont', 'will not', 'rather not', 'want to',
                    'going to', 'prefer not', 'refuse', 'cant', 'cannot', "can't", 'can’t',
                    'couldnt', 'could not', 'unable')),
    TextRule("so I don't know whether (after a named problem)", "decline",
             _r(r"\b(?:I|we)\s+(?:don't|don’t|do\s+not|can't|can’t|cannot)\s+(?:really\s+)?(?:know|"
                r"say|tell)\s+(?:for\s+sure\s+)?(?:if|whether|what|when|how\s+(?:much|many))\b|"
                r"\b(?:I|we)\s+have\s+no\s+(?:way|means)\s+(?:to|of)\s+(?:know|tell|check|confirm)"),
             with_problem=True,
             needs=("n't", 'not', '’t', 'no way', 'no means')),
    TextRule("(es/pt/fr/it/de/ja/zh) so I don't know whether (after a named problem)", "decline",
             _r(r"\bno\s+(?:sé|puedo\s+saber)\s+si\b|\bnão\s+(?:sei|consigo\s+saber)\s+se\b|"
                r"\bje\s+ne\s+sais\s+pas\s+si\b|\bnon\s+so\s+(?:dire\s+)?se\b|"
                r"\b(?:weiß|wissen)\s+(?:ich|wir)\s+(?:\w+\s+)?nicht,?\s+ob\b|\bich\s+weiß\s+"
                r"(?:\w+\s+)?nicht,?\s+ob\b|かどうか(?:は)?(?:分かりません|わかりません|不明)|"
                r"不知道(?:是否|有没有|有沒有)|无法确定是否|無法確定是否"),
             with_problem=True,
             needs=('sé', 'saber', 'sei', 'sais', 'so ', 'weiß', 'wissen', 'かどうか', '不知道',
                    '无法确定', '無法確定')),
    # -- the same signals in es, pt, fr, it, de, ja, zh (one rule per phenomenon) ---------
    TextRule("(es/pt/fr/it/de/ja/zh) the call returned an error / failed / timed out",
             "problem",
             _r(r"\b(?:devolvi[óo]|retornou|devolveu|renvoy[ée]e?|renvoie|restituit[oa]|"
                r"restituisce|lieferte|meldete|dio|deu|répondu|respondió|respondeu|risposto)\s+"
                r"(?:\w+\s+){0,2}(?:error|erro|erreur|"
                r"errore|fehler)|"
                r"\b(?:por|par|per|wegen|devido\s+a|debido\s+a)\s+(?:un|une|uno|um|einen?|"
                r"eines)?\s*(?:error|erreur|errore|erro|fehlers?)\b|"
                r"\bfehler\b[^.?!]{0,20}\baufgetreten\b|\bfehler\w*\s+(?:zurückgegeben|zurückgeliefert|"
                r"geliefert|gemeldet|ausgegeben|geworfen)|"
                r"\b(?:hubo|houve|il\s+y\s+a\s+eu|c'è\s+stato|gab\s+es|se\s+produjo|ocurri[óo]|"
                r"ocorreu|s'est\s+produit|si\s+è\s+verificat\w*)\s+(?:\w+\s+)?(?:error|erro|erreur|"
                r"errore|fehler|falha|falla|fallo|échec|problème|problema|problem|panne|störung)|"
                r"\b(?:antwort|respuesta|resposta|réponse|risposta|ergebnis|resultado|résultat|"
                r"risultato|daten|datos|dados|données|dati)\b[^.?!]{0,30}(?<!de\s)(?<!di\s)(?<!d')"
                r"\b(?:error|erro|erreur|errore|fehler)|"
                r"\b(?:servicio|serviço|service|servizio|dienst|api|herramienta|ferramenta|outil|"
                r"strumento|sistema|système|system)\b[^.?!]{0,40}\b(?:indisponible|indisponível|"
                r"no\s+está\s+disponible|não\s+está\s+disponível|non\s+è\s+disponibile|"
                r"nicht\s+verfügbar|n'est\s+pas\s+disponible)|出错|出錯|报错|報錯|"
                r"\b(?:falló|falhou|échou[ée]e?|fallit[ao]|fehlgeschlagen|gescheitert|schlug\s+fehl)\b|"
                r"\bdélai\s+(?:d'attente\s+)?dépassé|\btiempo\s+(?:de\s+espera\s+)?agotado|"
                r"\btempo\s+(?:limite|esgotado|scaduto)|\bzeitüberschreitung|"
                r"\b(?:zugriff|acceso|accès|accesso|acesso)\s+(?:verweigert|denegado|refusé|"
                r"negato|negado)|"
                r"(?:返回|返って|出现|发生|発生|出)了?(?:(?!没有|沒有|无|無)[^。！？]){0,12}"
                r"(?:错误|錯誤|エラー|报错|异常)|"
                r"(?:错误|錯誤|エラー)\s*(?:[：:（(]|が(?:返|発生|出|含)|を(?:返|含))|超时|超時|タイムアウト|失败|失敗"),
             guard_negation=True,
             needs=('hubo', 'houve', 'il y a eu', "c'è", 'gab es', 'produjo', 'ocurri', 'répondu',
                    'respondi', 'respondeu', 'risposto',
                    'indisponi', 'disponible', 'disponível', 'disponibile', 'verfügbar', '出错',
                    '出錯', '报错', '報錯',
                    'devolvi', 'retornou', 'devolveu', 'renvoy', 'renvoie', 'restitui',
                    'lieferte', 'meldete', 'dio', 'deu', 'error', 'erro', 'erreur', 'fehler',
                    'fall', 'falhou', 'échou', 'fehlgeschlagen',
                    'gescheitert', 'schlug', 'délai', 'tiempo',
                    'tempo', 'zeitüberschreitung', 'verweigert', 'denegado', 'refusé', 'negato',
                    'negado', '错误', '錯誤', 'エラー', '报错', '异常', '超时', '超時',
                    'タイムアウト', '失败', '失敗')),
    TextRule("(es/pt/fr/it/de/ja/zh) for X, not Y / instead of", "problem",
             _r(r"(?:,|，|—|–|\bet|\be|\by|\bund)\s*(?:no\s+(?:para|de|en|al?|del)\s+|"
                r"(?:não|non|nicht|pas)\s+(?:(?:para|de|di|für|pour|per|em|en|in|a|à|al|do|da|del|"
                r"du|aus|von|sur|auf|an|bei|zu|zum|zur|über|sobre|su|sul|sulla|chez|con)\s+)?)"
                r"(?:(?:el|la|lo|los|las|o|"
                r"os|le|les|il|den|der|die|das)\s+|l['’])?(?-i:[A-Z0-9ÁÉÍÓÚÀÈÌÒÙÂÊÔÄÖÜ])|"
                r"\b(?:au\s+lieu\s+d[eu]|en\s+lugar\s+de|en\s+vez\s+de|invece\s+di|em\s+vez\s+de|"
                r"ao\s+invés\s+de|anstatt|statt)\s+(?:(?:aus|von|für|vom)\s+)?(?:diese[mnrs]?|heute|morgen|"
                r"gestern|este|esta|hoy|mañana|hoje|amanhã|celui-ci|celle-ci|aujourd'hui|demain|"
                r"questo|questa|oggi|domani)\b|"
                r"\b(?:au\s+lieu\s+d[eu]|en\s+lugar\s+de|en\s+vez\s+de|invece\s+di|em\s+vez\s+de|"
                r"ao\s+invés\s+de|anstatt|statt)\s+(?:(?:la|le|el|il|o|a|den|der|die|das)\s+)?"
                rf"(?:(?-i:[A-Z0-9])|{_NUM_ML}\b)|"
                r"の(?:もの)?(?:では|じゃ)な|(?:もの|データ|結果)で、[^。]{1,20}(?:では|じゃ)(?:な|あり)|[，,]\s*(?:而)?不是|而不是|并非|並非"),
             needs=('no', 'não', 'non', 'nicht', 'pas', 'lieu', 'lugar', 'vez', 'invece',
                    'invés', 'statt', 'では', 'じゃ', '不是', '并非', '並非')),
    TextRule("(es/pt/fr/it/de/ja/zh) does not match / seems wrong, odd or incomplete",
             "problem",
             _r(r"\bno\s+(?:coincide|coinciden|corresponde|corresponden|cuadra|cuadran|concuerda)|"
                r"\bnão\s+(?:corresponde|correspondem|bate|batem|coincide|confere)|"
                r"\bne\s+(?:correspond|correspondent|colle|concorde)\s+pas|"
                r"\bnon\s+(?:corrisponde|corrispondono|coincide|torna|tornano)|"
                r"\b(?:passt|passen|stimmt|stimmen)\s+(?:\w+\s+)?nicht\b|\bweicht\b[^.?!]{0,80}"
                r"\bab\b|\bwidersprech\w*|\bcontradic\w*|\bcontraddic\w*|"
                r"\b(?:parece|parecen|parecem|semble|semblent|sembra|sembrano|scheint|scheinen|"
                r"paraît|paraissent|pare|wirkt|es|está|están|estão|é|est|c'est|è|ist|sind|son|são|"
                r"sont|sono)\s+"
                r"(?:\w+\s+)?(?:"
                r"(?:un|une|uno|um|ein)\s+(?:error|erreur|errore|erro|fehler)\b|(?:peu|poco|pouco)\s+"
                r"(?:plausib\w*|fiable|affidabile|confiable|confiável)|unplausibel|"
                r"invraisemblable|inverosímil|incomplet\w*|unvollständig|"
                r"incorrect\w*|incorret\w*|incomplètes?|errad[oa]s?|erróne[oa]s?|erroné\w*|errat[oaie]|"
                r"absurd[eoa]?s?|assurd[oaie]|insensé\w*|irréaliste\w*|irreal(?:es|ista)?|"
                r"unrealistisch|unsinnig|aberrant\w*|"
                r"sbagliat[oaie]|falsch|fehlerhaft|faux|fausse|fals[oa]s?|extrañ[oa]s?|estranh[oa]s?|"
                r"étranges?|stran[oaie]|seltsam|merkwürdig|komisch|bizarres?|sospechos[oa]s?|"
                r"suspeit[oa]s?|sospett[oaie]|truncad[oa]s?|tronqué\w*|troncat[oaie]|abgeschnitten|"
                r"desactualizad[oa]s?|desatualizad[oa]s?|obsolètes?|veraltet)|"
                r"^\W*(?:bizarre|étrange|seltsam|merkwürdig|komisch|strano|extraño|estranho|curieux|"
                r"curieuse|curioso|curiosa|eigenartig)\s*[:!,—–]|"
                r"^\W*(?:bizarre|étrange|seltsam|merkwürdig|komisch|strano|extraño|estranho)\b|"
                r"\b(?:potrebbero|potrebbe|podrían|podría|poderiam|pourraient|könnten)\s+"
                r"(?:\w+\s+)?(?:mancare|faltar|manquer|fehlen)\b|"
                r"\b(?:probablemente|probabilmente|provavelmente|probablement|wahrscheinlich|"
                r"vermutlich|forse|talvez|quizás|peut-être|sûrement|seguramente|sicuramente|"
                r"certamente|bestimmt|clairement|claramente|chiaramente|offenbar|visiblement|évidemment|"
                r"evidentemente|ovviamente|offensichtlich|eindeutig|sin\s+duda|sem\s+dúvida|"
                r"sans\s+doute|senza\s+dubbio)\s+(?:\w+\s+){0,2}(?:un\s+|une\s+|"
                r"uno\s+|um\s+|ein\s+)?(?:error|errore|erreur|erro|fehler)\b|"
                r"\b(?:me\s+méfierais|méfiez|no\s+(?:me\s+)?fiar[íi]a|não\s+confiaria|"
                r"non\s+mi\s+fiderei|nicht\s+(?:\w+\s+)?vertrauen)|"
                r"おかしい|変です|不自然|一致しな|一致しません|矛盾|不完全|信頼できな|正しくな|不正確|"
                r"間違って|誤って|誤りがあ|途中で切れ|不太对|不太對|不正确|不正確|不准确|不準確|错了|錯了|"
                r"(?:数据|數據|结果|結果|资料)[^。！？]{0,6}有问题|"
                r"奇怪|(?<!对)不对|(?<!對)不對|不一致|不符|对不上|對不上|不匹配|不完整|可疑|不可靠|有误|有誤"),
             guard_if=True, guard_negation=True,
             needs=('no', 'não', 'ne', 'non', 'passt', 'passen', 'stimm', 'weicht', 'widersprech',
                    'contradic', 'contraddic', 'incomplet', 'incomplè', 'unvollständig',
                    'incorrect',
                    'incorret', 'errad', 'erróne', 'erroné', 'errat', 'sbagliat', 'falsch',
                    'fehlerhaft', 'faux', 'fausse', 'falso', 'falsa', 'absurd', 'assurd',
                    'insens', 'irréal', 'irreal', 'unrealistisch', 'unsinnig', 'aberrant',
                    'extrañ', 'estranh', 'étrange', 'stran', 'seltsam',
                    'merkwürdig', 'komisch', 'bizarre', 'curieu', 'curios', 'eigenartig',
                    'sospech', 'suspeit', 'sospett', 'error',
                    'erreur', 'errore', 'erro', 'fehler', 'plausib', 'fiable', 'affidabile',
                    'confiable', 'confiável', 'invraisemblable', 'inverosímil',
                    'truncad', 'tronqu', 'troncat', 'abgeschnitten', 'desactualizad',
                    'desatualizad', 'obsolète', 'veraltet', 'mancare', 'faltar', 'manquer',
                    'fehlen', 'méfi', 'fiar', 'confiaria', 'fiderei', 'vertrauen', 'おかしい',
                    '変です', '不自然', '一致し', '矛盾', '不完全',
                    '信頼できな', '正しくな', '不正確', '間違って', '誤って', '誤りがあ',
                    '途中で切れ', '不太', '不正确', '不准确', '不準確', '错了', '錯了', '有问题',
                    '奇怪', '不对', '不對', '不一致', '不符', '对不上', '對不上',
                    '不匹配', '不完整', '可疑', '不可靠', '有误', '有誤')),
    TextRule("(es/pt/fr/it/de/ja/zh) not sure about the data / not the one asked for",
             "problem",
             _r(r"(?:\bno\s+estoy\s+segur[oa]|\bnão\s+(?:tenho\s+certeza|estou\s+segur[oa])|"
                r"\bne\s+suis\s+pas\s+(?:sûre?|certaine?)|\bnon\s+sono\s+(?:sicur[oa]|cert[oa])|"
                r"\bnicht\s+sicher|\bbezweifle|\bdudo\b|\bduvido\b|\bje\s+doute|\bdubito\b|不确定|不確定|"
                r"不能确定|確かではな|確信が持てな)[^.?!。]{0,40}"
                r"(?:dato|datos|dados|données|dati|daten|lista|liste|list|elenco|resultado|résultat|"
                r"risultato|ergebnis|valor|valeur|valore|wert|información|informação|information|"
                r"数据|數據|结果|結果|データ|値|リスト)|"
                r"\bno\s+(?:es|son|era|eran)\s+(?:el|la|los|las|lo)\s+que\s+(?:\w+\s+)?(?:pedi\w*|"
                r"pidi\w*|solicit\w*|quer\w*|busca\w*)|\bnão\s+(?:é|são)\s+(?:o|a|os|as)\s+que\s+"
                r"(?:\w+\s+)?(?:pedi\w*|solicit\w*|queria\w*)|\bpas\s+(?:le\s+bon|la\s+bonne|"
                r"les\s+bons|celui\s+du\s+bon|celle\s+du\s+bon|celui\s+que|celle\s+que|ce\s+que)|"
                r"\bnon\s+(?:è|sono)\s+(?:quell[oaie]|il|la)\s+(?:giust[oaie]|che\s+hai)|"
                r"\bnicht\s+(?:der|die|das|den)\s+(?:richtige|gewünschte|angefragte|gesuchte)|"
                r"\bfalsche[nrs]?\s+(?-i:[A-Z])|\b(?:ciudad|paciente|fecha|producto|registro|"
                r"cidade|data|produto|città|paziente|prodotto|ville|patient|produit|date|dossier|"
                r"giorno|día|dia|jour|mes|mese|mois|año|anno|ano|année|semana|settimana|semaine|"
                r"hora|ora|heure|hotel|vuelo|voo|vol|volo|pedido|ordine|commande|medicamento|"
                r"farmaco|médicament|cliente|usuario|utente|persona|pessoa|aeropuerto|aeroporto|"
                r"moneda|moeda|valuta|unidad|unidade|unità|unité|tienda|loja|negozio|magasin)"
                r"\s+(?:equivocad[oa]|incorrect[oa]?|errad[oa]|sbagliat[oa]|errat[oa])\b|"
                r"\bmauvaise?\s+(?:ville|patient|date|produit|dossier|personne|jour|mois|année|heure|"
                r"semaine|vol|commande|médicament|hôtel|client|utilisateur|aéroport|unité|"
                r"devise|magasin|adresse)|(?:別の日|違う日|間違った(?:日|都市|患者|商品|日付))|"
                r"错误的(?:日期|城市|患者|病人|产品|用户)|錯誤的(?:日期|城市|患者|病人|產品|用戶)|"
                r"(?:\bno|\bnão|\bne|\bnon)\s+(?:es|son|é|são|semble|sembra|parece|è|sono|sont|están|"
                r"estão|est)\s+(?:pas\s+)?(?:\w+\s+)?(?:correct\w*|corret\w*|corrett\w*|exact\w*|"
                r"esatt\w*|giust\w*|juste|aggiornat\w*|actualizad\w*|atualizad\w*|à\s+jour|complet\w*|"
                r"coh[ée]rent\w*|coerent\w*|plausib\w*|l[óo]gic\w*)|\bno\s+tiene\s+sentido|"
                r"\bnão\s+faz\s+sentido|\bn'a\s+pas\s+de\s+sens|\bnon\s+ha\s+senso|"
                r"\b(?:ergibt|macht)\s+keinen\s+sinn|"
                r"\b(?:dados|datos|données|dati|daten|resultados?|résultats?|risultati|informaç\w+|"
                r"informaci\w+|informations?|informazioni|informationen)\s+(?:\w+\s+)?"
                r"(?:incomplet\w*|incorrect\w*|incorret\w*|errad\w*|erróne\w*|erroné\w*|errat\w*|"
                r"sbagliat\w*|desactualizad\w*|desatualizad\w*|obsolet\w*|veraltet\w*|"
                r"unvollständig\w*|falsch\w*)|"
                r"\b(?:paciente|ciudad|fecha|producto|persona|cidade|data|produto|pessoa|ville|"
                r"usuario|usuário|utilisateur|utente|cliente|client|registro|"
                r"produit|personne|paziente|città|prodotto)\s+(?:distint[oa]|diferente|différente?|"
                r"divers[oa])\b|"
                r"\b(?:ist|sind|scheint|scheinen|kann|können|dürfte)\s+(?:\w+\s+)?nicht\s+(?:richtig|"
                r"korrekt|aktuell|vollständig|stimmen|plausibel)|"
                r"(?:ご質問|ご依頼|ご指定|お尋ね|ご希望)[^。]{0,20}(?:が、|けど|のに)|信じがたい|信じられな|"
                r"(?:データ|値|結果|情報)の?(?:誤り|間違い)|(?:これ|それ|この値|この情報|この結果)は(?:誤り|"
                r"間違い)|(?:誤り|間違い)だと思|間違っていると思|"
                r"(?:データ|結果|値|情報|応答)に問題|(?:リクエスト|ご質問|ご指定|指定|依頼|質問)と(?:違|異な)|"
                r"古い可能性|古いかもしれ|最新ではな|最新でな|不合理|"
                r"(?:和|与|與|跟)(?:您|你)[^。]{0,12}不一[样樣致]|"
                r"(?:而|但|可)(?:您|你)(?:问|問|要|查|说|說|指)"),
             needs=('segur', 'certeza', 'sûr', 'certain', 'sicur', 'cert', 'sicher', 'bezweifle',
                    'dudo', 'duvido', 'doute', 'dubito', '确定', '確定',
                    '確か', '確信', 'no ', 'não', 'pas', 'non', 'nicht', 'falsch', 'equivocad',
                    'incorrect', 'errad', 'sbagliat', 'errat', 'mauvais', 'ご質問', 'ご依頼',
                    'ご指定', 'お尋ね', 'ご希望', '您', '你', '信じ', '誤り', '間違い', 'coh',
                    'dados', 'datos', 'données', 'dati', 'informa', '問題',
                    'daten', 'resultado', 'résultat', 'risultati',
                    'coerent', 'plausib', 'lógic', 'logic', 'sentido', 'sens', 'sinn', 'distint',
                    'diferente', 'différent', 'divers', 'リクエスト', '指定', '依頼', '質問',
                    '別の日', '違う日', '間違った', '错误的', '錯誤的',
                    '古い', '最新', '不合理')),
    TextRule("(es/pt/fr/it/de/ja/zh) another patient / city / product", "problem",
             _r(r"\b(?:otro|otra|outro|outra|autre|altro|altra|anderen|anderes)\s+(?:paciente|"
                r"patient|paziente|patienten|usuario|usuário|utilisateur|utente|nutzers?|ciudad|"
                r"cidade|ville|città|stadt|producto|produto|produit|prodotto|produkts?|persona|"
                r"pessoa|personne|person|cliente|client|kunden|fecha|data|date|datum)\b|"
                r"(?:另一|别的|別的|別の|他の|違う)\s*(?:位|个|個|名|家)?\s*(?:患者|病人|城市|用户|製品|商品|都市|"
                r"日付|日期|记录|記録|人|店舗|店|ホテル|病院|クリニック|住所|予約|便|医師|薬|アカウント|"
                r"口座|注文|门店|酒店|医院|诊所|地址|预约|航班|医生|药|账户|订单)|"
                r"\b(?:problem|problema|problème)\w*\s+(?:mit|con|com|avec)\s+(?:\w+\s+)?(?:\w*abfrage|"
                r"\w*anfrage|suche|verbindung|server|dienst|tool|api|consulta|búsqueda|servidor|"
                r"sistema|herramienta|requête|recherche|serveur|outil|service|pesquisa|ferramenta|"
                r"richiesta|ricerca|servizio|connessione|conexión|conexão|connexion)"),
             needs=('problem', 'otro', 'otra', 'outro', 'outra', 'autre', 'altro', 'altra',
                    'anderen',
                    'anderes', '另一', '别的', '別的', '別の', '他の', '違う')),
    TextRule("(es/pt/fr/it/de) but you asked for another", "problem",
             _r(r"\balors\s+que\s+vous\s+(?:\w+\s+)?(?:demandiez|avez\s+demandé|aviez\s+demandé|"
                r"vouliez|cherchiez|parliez|avez\s+indiqué|aviez\s+indiqué)|\bmais\s+vous\s+"
                r"(?:\w+\s+)?(?:avez\s+demandé|demandiez|vouliez|cherchiez|aviez\s+demandé|"
                r"avez\s+indiqué)|\b(?:pero|mientras\s+que|aunque)\s+(?:usted\s+|tú\s+|tu\s+)?"
                r"(?:me\s+)?(?:pidió|pediste|preguntó|preguntaste|buscaba|buscabas|quería|querías|"
                r"solicitó|solicitaste|dijo|dijiste|mencionó|mencionaste|indicó|indicaste)\b"
                r"(?!\s+(?:también|además)\b)|"
                r"\b(?:mas|enquanto|embora)\s+(?:você|o\s+senhor|a\s+senhora|tu)\s+(?:me\s+)?"
                r"(?:pediu|perguntou|queria|procurava|solicitou|disse|mencionou|indicou)\b"
                r"(?!\s+(?:também|ainda)\b)|"
                r"\b(?:ma|mentre|anche\s+se)\s+(?:tu\s+|lei\s+)?(?:mi\s+)?(?:hai\s+chiesto|chiedevi|"
                r"volevi|cercavi|avevi\s+chiesto|hai\s+detto|ha\s+chiesto|chiedeva|hai\s+indicato)|"
                r"\b(?:aber|obwohl|während|doch)\s+Sie\s+(?:\w+\s+){0,4}(?:gefragt|gesucht|angefragt|"
                r"wollten|meinten|erwähnt|genannt|angegeben)\b"),
             needs=('alors que', 'mais', 'pero', 'mientras', 'aunque', 'mas', 'enquanto', 'embora',
                    'ma ', 'mentre', 'anche se', 'aber', 'obwohl', 'während', 'doch')),
    TextRule("(es/pt/fr/it/de/ja/zh) impossible / not a real one / unusual / oddly", "problem",
             _r(r"\b(?:es|eso\s+es|lo\s+cual\s+es|é|isso\s+é|o\s+que\s+é|est|c'est|ce\s+qui\s+est|"
                r"è|questo\s+è|il\s+che\s+è|ist|das\s+ist|was)\s+(?:\w+\s+)?(?:imposible|"
                r"impossível|impossible|impossibile|unmöglich)\s*(?:[.,;:!)—–-]|$)|"
                r"\bno\s+parece\s+(?:\w+\s+)?(?:real|válid[oa]|verdader[oa]|plausible)\b|"
                r"\bnão\s+parece\s+(?:\w+\s+)?(?:real|válid[oa]|verdadeir[oa]|plausível)|"
                r"\bne\s+(?:semble|paraît)\s+pas\s+(?:\w+\s+)?(?:réel\w*|valide|vrai\w*|"
                r"plausible|authentique)|\bn'a\s+pas\s+l'air\s+(?:\w+\s+)?(?:réel\w*|valide|vrai\w*|"
                r"correct\w*|d'être)|\bnon\s+(?:sembra|pare)\s+(?:\w+\s+)?(?:real\w*|valid\w*|"
                r"ver[oa]|plausibil\w*|autentic\w*)|\b(?:sieht|wirkt|scheint)\s+(?:\w+\s+)?nicht\s+"
                r"(?:\w+\s+)?(?:echt|gültig|korrekt|richtig|plausibel|real|realistisch)|"
                r"\b(?:laut|según|segun|selon|secondo|segundo|d'après)\s+(?:dem\s+|der\s+|den\s+|"
                r"el\s+|la\s+|los\s+|las\s+|le\s+|les\s+|l'|lo\s+|il\s+|i\s+|o\s+|a\s+|os\s+|as\s+)?"
                r"(?:tool|system|api|datenbank|kalender|ergebnis|daten|herramienta|sistema|"
                r"calendario|datos|resultado|outil|système|calendrier|données|résultat|"
                r"strumento|dati|risultato|ferramenta|calendário|dados)\b[^?!]{0,80}[–—]\s*(?:sehr\s+|muy\s+|"
                r"très\s+|molto\s+|muito\s+)?(?:ungewöhnlich|inusual|incomum|inhabituel\w*|"
                r"insolit\w*|extrañ[oa]|estranh[oa]|étrange|stran[oa]|seltsam)\b|\b(?:scheint|wirkt|klingt|sieht)\s+(?:\w+\s+)?ungewöhnlich|"
                r"\b(?:parece|resulta)\s+(?:\w+\s+)?(?:inusual|incomum)|\b(?:semble|paraît)\s+"
                r"(?:\w+\s+)?inhabituel\w*|\b(?:sembra|pare)\s+(?:\w+\s+)?insolit\w*|"
                r"\b(?:extrañamente|estranhamente|bizarrement|étrangement|stranamente|"
                r"seltsamerweise|merkwürdigerweise|komischerweise|eigenartigerweise)\b|"
                r"\b(?:sistema|calendario|calendário|herramienta|ferramenta|aplicación|aplicativo|"
                r"système|calendrier|outil|application|strumento|app|api|System|Kalender|Tool|"
                r"Dienst)\s+(?:\w+\s+)?(?:cree|afirma|insiste|jura|acha|croit|prétend|affirme|"
                r"jure|crede|sostiene|afferma|giura|glaubt|behauptet|schwört)\b|"
                r"本物ではな|有効ではな|実在しな|ありえな|あり得な|不像(?:是)?(?:真|有效|正确|正確|合理)|"
                r"这不可能|這不可能|不可能[。！，,]|是不可能的|奇怪的是|なぜか|(?:系统|系統)(?:认为|認為|声称|聲稱|坚称)"),
             guard_negation=True,
             needs=('imposible', 'impossível', 'impossible', 'impossibile', 'unmöglich', 'parece',
                    'semble', 'paraît', "l'air", 'sembra', 'pare', 'sieht', 'wirkt', 'scheint',
                    'ungewöhnlich', 'inusual', 'incomum', 'inhabituel', 'insolit', 'extrañ',
                    'estranh', 'étrange', 'stran', 'seltsam', 'klingt', 'resulta', 'mente',
                    'weise', 'cree', 'afirma', 'insiste', 'jura', 'acha', 'croit', 'prétend',
                    'affirme', 'jure', 'crede', 'sostiene', 'afferma', 'giura', 'glaubt',
                    'behauptet', 'schwört', '本物', '有効', '実在', 'ありえな', 'あり得な',
                    '不像', '不可能', '奇怪的是', 'なぜか', '系统', '系統', 'bizarrement')),
    TextRule("(es/pt/fr/it/de/ja/zh) only N of N / may be incomplete / interrupted", "problem",
             _r(r"\b(?:devolvió|trajo|dio|recibí|obtuve|retornou|trouxe|devolveu|recebi|obtive|"
                r"restituito|restituisce|ricevuto|ottenuto|renvoyé|retourné|fourni)\s+(?:solo|sólo|"
                rf"solamente|únicamente|só|apenas|somente|soltanto|seulement)\s+{_NUM_ML}\s+(?:de|dos|das|"
                r"su|di|dei|delle|sur|des)\b|"
                r"\b(?:solo|sólo|só|apenas)\s+(?:devolvió|trajo|dio|mostró|retornou|trouxe|devolveu|"
                rf"mostrou|veio\s+com|vino\s+con)\s+{_NUM_ML}\s+(?:de|dos|das)\b|"
                rf"\bn'a\s+(?:renvoyé|retourné|donné|fourni)\s+que\s+{_NUM_ML}\s+(?:sur|des|de)\b|"
                rf"\bne\s+(?:renvoie|retourne)\s+que\s+{_NUM_ML}\s+(?:sur|des|de)\b|"
                r"\b(?:liefert|lieferte|gab|kam|kamen)"
                rf"\s+(?:\w+\s+)?nur\s+{_NUM_ML}\s+(?:von|der|aus)\b|"
                r"\b(?:pode|podem|puede|pueden|podría|podrían|poderia|poderiam|peut|peuvent|pourrait|"
                r"pourraient|può|possono|potrebbe|potrebbero)\s+(?:\w+\s+)?(?:estar|ser|être|essere)"
                r"\s+(?:\w+\s+)?(?:incomplet\w*|desactualizad\w*|desatualizad\w*|obsolet\w*|"
                r"obsolète\w*|incorrect\w*|incorret\w*|erróne\w*|erroné\w*|errat\w*|sbagliat\w*|"
                r"parcial\w*|partiel\w*|parzial\w*|tronqu\w*|troncat\w*|truncad\w*)|"
                r"\b(?:kann|können|könnte|könnten|dürfte|dürften)\s+(?:\w+\s+){0,3}(?:unvollständig|"
                r"veraltet|falsch|fehlerhaft|nicht\s+aktuell|abgeschnitten)\s+sein\b|"
                r"\b(?:búsqueda|consulta|solicitud|petición|conexión|respuesta|busca|pesquisa|"
                r"solicitação|requisição|conexão|resposta|recherche|requête|connexion|réponse|"
                r"ricerca|richiesta|connessione|risposta|suche|anfrage|abfrage|verbindung|antwort)"
                r"\s+(?:fue|se\s+ha|se|foi|está|a\s+été|est|s'est|è\s+stata|si\s+è|wurde|ist)\s+"
                r"(?:\w+\s+)?(?:interrump\w*|interrompid\w*|interromp\w*|interrott\w*|"
                r"abgebrochen|unterbrochen|cortad\w*|coupé\w*)|中断され|途中で止ま|中断了|被中断|"
                r"中斷了|被中斷|(?:\d+|[一二三四五六七八九十]+)(?:件|日|日分|つ)?(?:中|のうち)"
                r"(?:\d+|[一二三四五六七八九十]+)(?:件|日|日分|つ)?しか|"
                r"只(?:返回|给出|給出|提供|显示|顯示|拿到|查到)了?\s*(?:\d+|[一二两兩三四五六七八九十]+)"),
             guard_negation=True,
             needs=('solo', 'sólo', 'solamente', 'únicamente', 'só', 'apenas', 'somente',
                    'soltanto', 'seulement', "n'a", 'ne ', 'nur', 'estar', 'ser', 'être',
                    'essere', 'sein', 'interr', 'abgebrochen', 'unterbrochen', 'cortad', 'coupé',
                    '中断', '中斷', '途中で止ま', 'しか', '只')),
    TextRule("(es/pt/fr/it/de/ja/zh) came back with an error / garbage / not usable", "problem",
             _r(r"\b(?:volvió|vino|voltou|veio|revenu\w*|tornat[oa]|kam)\s+(?:\w+\s+)?(?:con|com|"
                r"avec|mit)\s+(?:un|una|um|uma|une|uno|einem|einer)?\s*(?:error|erro|erreur|errore|"
                r"fehler)|"
                r"\b(?:devolvió|dio|respondió|retornou|devolveu|deu|respondeu|renvoyé|donné|"
                r"répondu|restituito|dato|risposto|lieferte|gab|antwortete|meldete)\s+(?:\w+\s+)"
                r"{0,2}(?:basura|lixo|n'importe\s+quoi|charabia|spazzatura|müll|unsinn|kauderwelsch|"
                r"(?:HTTP\s+)?(?:400|401|403|404|408|409|422|429|500|502|503|504)\b)|"
                r"\b(?:datos|dados|données|dati|daten|resultados?|résultats?|risultat[oi]|"
                r"ergebnis(?:se)?|respuesta|resposta|réponse|risposta|antwort)\s+(?:\w+\s+){0,2}"
                r"(?:inservibles?|inutilizables?|inutilizáve(?:l|is)|inutilisables?|"
                r"inutilizzabil[ei]|unbrauchbar|no\s+(?:sirven?|(?:es|son)\s+utilizables?)|"
                r"não\s+(?:servem?|(?:é|são)\s+utilizáve\w*)|(?:ne\s+sont|n'est)\s+pas\s+"
                r"utilisables?|non\s+(?:servono|serve|(?:è|sono)\s+utilizzabil\w*)|"
                r"(?:ist|sind)\s+nicht\s+(?:\w+\s+)?(?:brauchbar|verwendbar))|"
                r"文字化け|意味不明|乱码|亂碼|(?:返回|给出|給出)了?(?:一堆)?(?:垃圾|乱码)|"
                r"(?:データ|結果)[^。]{0,8}(?:使えな|使い物にならな)|"
                r"(?:数据|數據|结果|結果)[^。]{0,8}(?:没法用|無法使用|无法使用|不能用|用不了)|"
                r"(?:返回|返って)[^。]{0,6}(?:4\d\d|5\d\d)(?!\d)"),
             guard_negation=True,
             needs=('volvió', 'vino', 'voltou', 'veio', 'revenu', 'tornat', 'kam', 'devolvi',
                    'dio', 'respond', 'retornou', 'devolveu', 'deu', 'renvoy', 'donné', 'répondu',
                    'restituito', 'dato', 'risposto', 'lieferte', 'gab', 'antwort', 'meldete',
                    'datos', 'dados', 'données', 'dati', 'daten', 'result', 'résultat',
                    'risultat', 'ergebnis', 'respuesta', 'resposta', 'réponse', 'risposta',
                    '文字化け', '意味不明', '乱码', '亂碼', '垃圾',
                    'データ', '結果', '数据', '數據',
                    '结果', '返')),
    TextRule("(es/pt/fr/it/de/ja/zh) yesterday's data, not today's", "problem",
             _r(r"[,，]\s*(?:y\s+|e\s+|et\s+|und\s+)?(?:no|não|pas|non|nicht)\s+(?:de\s+|d'|di\s+|"
                r"do\s+|da\s+|von\s+|vom\s+)(?:hoy|mañana|ayer|esta\s+semana|"
                r"hoje|amanhã|ontem|esta\s+semana|aujourd'hui|demain|hier|cette\s+semaine|oggi|"
                r"domani|ieri|questa\s+settimana|heute|morgen|gestern|dieser\s+woche)\b|"
                r"今日のものではな|本日のものではな|(?:而)?不是今天|並非今天|并非今天"),
             needs=('no', 'não', 'pas', 'non', 'nicht',
                    '今日', '本日', '不是今天', '並非', '并非')),
    TextRule("(es/pt/fr/it/de/ja/zh) retry", "retry",
             _r(r"\b(?:de\s+nuevo|otra\s+vez|nuevamente|reintent\w*|vuelvo\s+a\s+\w+|novamente|"
                r"de\s+novo|à\s+nouveau|de\s+nouveau|réessa\w*|relance\w*|encore\s+une\s+fois|"
                r"recommenc\w*|di\s+nuovo|nuovamente|riprov\w*|ripeto|ancora\s+una\s+volta|erneut|"
                r"noch\s*(?:ein)?mal|wiederhole\w*|(?:suche|frage|lade|starte)\s+(?:\w+\s+)?neu)\b"
                r"(?![^.?!]{0,40}\b(?:suivante|prochaine|siguiente|próxim[oa]|prossim[oa]|nächste\w*|"
                r"comme\s+demandé|como\s+(?:pediste|pidió|pedido|solicitado)|come\s+richiesto|"
                r"wie\s+gewünscht))|もう一度|再検索|再試行|やり直|再度|再试|重试|重新|再查|再次"),
             needs=('recommenc', 'nuevo', 'otra vez', 'nuevamente', 'reintent', 'vuelvo',
                    'novamente', 'novo', 'nouveau', 'réessa', 'relance', 'encore', 'nuovo',
                    'nuovamente', 'riprov', 'ripeto', 'ancora', 'erneut', 'noch', 'wiederhole',
                    'neu',
                    'もう一度',
                    '再検索', '再試行', 'やり直', '再度', '再试', '重试', '重新', '再查', '再次')),
    TextRule("(es/pt/fr/it/de/ja/zh) check", "check",
             _r(r"\b(?:prüfe|überprüfe|verifico|verifique|vérifie|vérifier|controllo|compruebo|"
                r"comprobar|confirmo)\b|確認します|確認する|核实|核对|查证"),
             needs=('prüfe', 'verifi', 'vérifi', 'controllo', 'comprue', 'comprobar', 'confirmo',
                    '確認', '核实', '核对', '查证')),
    TextRule("(es/pt/fr/it/de/ja/zh) could you confirm / which do you mean", "question",
             _r(r"¿\s*(?:me\s+)?confirm\w*|\bme\s+confirma\w*|\b(?:podría|podrías|puede|puedes|"
                r"pode|poderia|pourriez|pouvez|puoi|può|potrebbe|könnten|können)(?:-vous|-tu)?\s+"
                r"(?:(?:me|mir|mi|Sie|vous)\s+)*(?:bitte\s+)?(?:confirm\w*|conferm\w*|bestätig\w*|"
                r"précis\w*|aclar\w*|specific\w*|especific\w*)|\b(?:bitte|por\s+favor|"
                r"per\s+favore)\s+(?:\w+\s+)?(?:bestätig\w*|confirm\w*|conferm\w*)|"
                r"\bte\s+refieres|\bvous\s+voulez\s+dire|\bmeinen\s+Sie|\bintendi\b|"
                r"\bquer\s+dizer|\bti\s+riferisci|请确认|請確認|对吗|對嗎|您是指|"
                r"ご確認いただけ|のことですか|確認させてください|教えていただけますか|ご確認ください"),
             needs=('confirm', 'conferm', 'bestätig', 'précis', 'aclar', 'specific', 'especific',
                    'refieres', 'voulez dire', 'meinen', 'intendi', 'dizer', 'riferisci', '确认',
                    '確認', '对吗', '對嗎', '您是指', 'のことですか', '教えていただけ')),
    TextRule("(es/pt/fr/it/de/ja/zh) cannot confirm / tell", "decline",
             _r(r"\bno\s+puedo\s+(?:confirmar|decir|dar|indicar|informar|determinar|asegurar)|"
                r"\bnão\s+(?:consigo|posso)\s+(?:te\s+|lhe\s+|lhes\s+|vos\s+)?(?:confirmar|dizer|dar|"
                r"informar|determinar|indicar|passar)|"
                r"\bje\s+(?:ne\s+peux\s+pas|préfère\s+ne\s+pas)\s+(?:vous\s+)?(?:confirmer|dire|"
                r"donner|indiquer|déterminer)|\bnon\s+(?:posso|riesco\s+a)\s+(?:confermare|dire|"
                r"dare|indicare|determinare)|\bkann\s+ich\s+(?:\w+\s+){0,4}(?:nicht|keine\w*)\s+(?:\w+\s+){0,2}"
                r"(?:anzeigen|bestätigen|sagen|angeben|bestimmen|nennen|geben|liefern|machen|"
                r"beantworten|empfehlen|garantieren)\b|"
                r"\b(?:ich|wir)\s+(?:kann|können)\s+(?:\w+\s+){0,4}(?:nicht|keine\w*)\s+(?:\w+\s+){0,2}"
                r"(?:anzeigen|bestätigen|sagen|angeben|bestimmen|nennen|geben|liefern|machen|"
                r"beantworten|empfehlen|garantieren)\b|"
                r"(?:不能|无法)[^。，,]{0,4}(?:给出|給出|提供|回答|告诉|告訴)|无法(?:告诉|确定|确认|提供|回答)|"
                r"無法(?:告訴|確定|確認|提供|回答)|(?:お答え|お伝え|確認|判断)できません"),
             needs=('puedo', 'consigo', 'posso', 'peux', 'préfère', 'riesco', 'kann', 'können',
                    '无法', '無法', 'できません', '不能')),
    TextRule("(es/pt/fr/it/de/ja/zh) I won't use / give it (after a named problem)", "decline",
             _r(r"\b(?:möchte|will|werde)\s+ich\s+(?:\w+\s+){0,3}(?:nicht|keine\w*)\s+(?:\w+\s+){0,2}"
                r"(?:geben|nennen|sagen|empfehlen|verwenden|angeben|verlassen)\b|"
                r"\b(?:ich|wir)\s+(?:möchte|will|werde|möchten|wollen|werden)\s+(?:\w+\s+){0,3}(?:nicht|"
                r"keine\w*)\s+(?:\w+\s+){0,2}(?:geben|nennen|sagen|empfehlen|verwenden|angeben)\b|"
                r"\b(?:prefiero|prefiro|preferisco)\s+(?:no|não|non)\s+(?:\w+\s+)?(?:dar|darte|darle|"
                r"decir|decirte|indicar|recomendar|usar|dizer|informar|dare|darti|dirti|dire|"
                r"fornire|indicare|consigliare|usare|citar|citare)|"
                r"\b(?:no|não|non)\s+(?:voy\s+a|quiero|vou|quero|voglio|ti|le)\s+(?:\w+\s+)?"
                r"(?:dar|darte|darle|decir|decirte|recomendar|usar|citar|dizer|informar|"
                r"recomendar|dare|darti|dirti|consigliarti|usare)\b|"
                r"\bje\s+ne\s+(?:vais|veux)\s+pas\s+(?:vous\s+)?(?:donner|dire|utiliser|recommander|"
                r"indiquer|avancer|citer)|控えます|差し控え|不便(?:回答|提供|给出|給出)|"
                r"(?:不会|不會|不想)[^。，,]{0,4}(?:给出|給出|提供|回答|告诉|告訴|推荐|推薦)"),
             with_problem=True,
             needs=('möchte', 'will', 'werde', 'wollen', 'werden', 'prefiero', 'prefiro',
                    'preferisco', 'no ', 'não', 'non', 'je ne', '控え', '不便', '不会', '不會',
                    '不想')),
    # -- v4 (issue 21): families of v3's misses on noticed_heldout2026b (scored once) -----
    TextRule("clearly off / obviously wrong", "problem",
             _r(r"\b(?:is|are|was|were|'s|looks?|seems?|which\s+is)\s+(?:clearly|obviously|"
                r"definitely|certainly|surely|plainly|patently)\s+(?:off|wrong|incorrect|"
                r"bogus|nonsense|absurd|impossible|a\s+mistake|an?\s+(?:\w+\s+)?error|"
                r"not\s+(?:right|correct|accurate|real|plausible))\b"),
             guard_if=True, guard_negation=True,
             needs=('clearly', 'obviously', 'definitely', 'certainly', 'surely', 'plainly',
                    'patently')),
    TextRule("I doubt it: not convinced / don't think it's accurate", "problem",
             _r(r"\bI\s+(?:do\s*n[o']t|don't|do not)\s+(?:really\s+)?(?:think|believe|trust)\s+"
                r"(?:(?:(?:that|this|these|those|the)\s+\w+|that|this|it|they)(?:'s)?\s*)?(?:is\s+|was\s+|"
                r"are\s+|were\s+)?(?:\w+\s+)?(?:accurate|right|correct|real|plausible|possible|valid|true|"
                r"reliable|current|complete)\b|"
                r"\bI(?:'m|\s+am)\s+(?:a\s+(?:bit|little)\s+|somewhat\s+|rather\s+|quite\s+|very\s+|"
                r"not\s+entirely\s+)?(?:skeptical|sceptical|doubtful|unconvinced|not\s+convinced|"
                r"wary|suspicious)\s*(?:that|of\s+(?:the|this|that|it|these|those)\b|"
                r"about\s+(?:the|this|that|it|these|those)\b|[.,;:!—–-]|$)|"
                r"\bnot\s+sure\s+(?:that|this|it|they)(?:'s|\s+is|\s+was|\s+are)\s+(?:really\s+)?"
                r"(?:the\s+(?:one|right|correct|place|city|person|patient|product)|"
                r"accurate|right|correct|real|current|complete|reliable)|"
                r"\bhard\s+to\s+believe\b|\btoo\s+good\s+to\s+be\s+true\b"),
             guard_if=True,
             needs=('think', 'believe', 'trust', 'skeptic', 'sceptic', 'doubtful', 'convinced',
                    'wary', 'suspicious', 'not sure', 'hard to', 'too good')),
    TextRule("a value many times the usual / orders of magnitude off", "problem",
             _r(r"\b(?:\d+|a\s+hundred|a\s+thousand|ten|twenty|fifty|hundred|thousand)\s*"
                r"(?:times|x|×)\s+(?:the\s+|a\s+|what\s+|higher|more|larger|greater|bigger|"
                r"above|over)[^.?!]{0,30}?\b(?:usual|normal|typical|expected|plausible|"
                r"realistic|range|would\s+expect|standard|recommended|maximum)\b|"
                r"\borders?\s+of\s+magnitude\b"),
             needs=('usual', 'normal', 'typical', 'expect', 'plausible', 'realistic', 'range',
                    'standard', 'recommended', 'maximum', 'magnitude')),
    TextRule("the result came back empty, partial or truncated", "problem",
             _r(r"\b(?:response|result|results|data|output|list|reply|payload|record|forecast|"
                r"listing|feed|page)\s+(?:looked|looks|seems|seemed|was|is|came\s+back|"
                r"appears?|appeared)\s+(?:to\s+be\s+)?(?:a\s+bit\s+|rather\s+|oddly\s+)?"
                r"(?:partial|incomplete|truncated|cut\s+off|empty|blank|half-empty)\b|"
                r"\bcame\s+back\s+(?:empty|blank|null|with\s+nothing|incomplete|partial|"
                r"truncated|half-empty)\b|\breturned\s+(?:no\s+data|an?\s+empty|null|blank)\b|"
                r"\b(?:only|just)\s+(?:returned|gave|listed|included|covers?|covered|has|had|"
                r"shows?|showed|contains?|goes|went|provided|sent)\s+[^.?!]{0,40}?\b(?:through|"
                r"until|up\s+to|till)\s+(?:\d|monday|tuesday|wednesday|thursday|friday|saturday|"
                r"sunday|the\s+first|today|tomorrow|noon|midnight|page)|"
                r"\b(?:is|are|was|were)\s+missing\s+from\s+(?:the|its|their)\b|"
                r"\b(?:returned|gave|sent|pulled|showed|shows|has|had)\s+(?:an?\s+|the\s+)?(?:outdated|"
                r"out-of-date|stale|obsolete)\b|\bconflicting\s+(?:info|information|data|results|"
                r"answers|reports|values|numbers|figures|prices|statuses)\b|"
                r"\bwithout\s+(?:any|a)\s+(?:\w+\s+)?(?:value|data|number|figure|time|date|"
                r"amount|reason|details?)\b[^.?!]{0,60}\b(?:may|might|could|so)\b"),
             guard_if=True,
             needs=('partial', 'incomplete', 'truncated', 'cut off', 'empty', 'blank', 'null',
                    'nothing', 'through', 'until', 'up to', 'till', 'without', 'missing',
                    'outdated', 'out-of-date', 'stale', 'obsolete', 'conflicting')),
    TextRule("(es/pt/fr/it/de/ja/zh) the data stops early / part is missing", "problem",
             _r(r"\b(?:solo|soltanto|solamente|nur|seulement|uniquement|sólo|só|apenas)\s+"
                r"(?:\w+\s+)?(?:fino|bis|jusqu|hasta|até)\b|"
                r"\b(?:quindi|perciò|also|daher|donc|alors|así\s+que|por\s+lo\s+que|então|"
                r"portanto|so)\s+(?:manca|mancano|fehlt|fehlen|manque|manquent|falta|faltan|"
                r"faltam)\b|(?:数据|資料|データ)[^。]{0,30}(?:只到|只有到|までしか)|"
                r"(?:缺少|缺失|欠けて|抜けて)"),
             guard_if=True,
             needs=('solo', 'soltanto', 'solamente', 'nur', 'seulement', 'uniquement', 'sólo', 'só',
                    'apenas', 'manca', 'fehl', 'manque', 'falta', '只', 'しか', '缺', '欠け',
                    '抜け')),
    TextRule("stale: stamped last week / has surely changed since", "problem",
             _r(r"\b(?:stamped|timestamped|cached)\s+(?:from\s+|on\s+)?(?:last\s+|a\s+(?:week|"
                r"month|year)|\d+\s+(?:days|weeks|months|years)|over\s+a\s+(?:week|month|year))|"
                r"\b(?:have|has)\s+(?:almost\s+certainly|probably|likely|surely|very\s+likely|"
                r"most\s+likely)\s+changed\b|\b(?:data|results?|prices?|fares?|rates?|figures|"
                r"numbers|feed|listing)\s+(?:\w+\s+){0,3}(?:from|dated|for)\s+last\s+year\b|"
                r"\b(?:could|might|may|would)\s+(?:easily\s+)?mislead\b|"
                r"不是最新|并非最新|過時|过时|去年的|最新ではない|古いデータ|\bveraltet\w*|"
                r"\bnicht\s+(?:mehr\s+)?aktuell\b|\bpas\s+à\s+jour\b|\bobsolètes?\b|"
                r"\bdesactualizad[oa]s?\b|\bnon\s+aggiornat[oiea]\b|\bdesatualizad[oa]s?\b"),
             guard_if=True, guard_negation=True,
             needs=('stamped', 'cached', 'changed', 'last year', 'mislead', '最新', '过时',
                    '過時', '去年', '古い', 'veraltet', 'aktuell', 'à jour', 'obsol',
                    'desactualizad', 'aggiornat', 'desatualizad')),
    TextRule("the tool gave X when / rather than what I asked", "problem",
             _r(r"\bwhen\s+I\s+(?:had\s+)?(?:asked|searched|looked)\s+for\b|"
                rf"\b{_SOURCE}\s+(?:\w+\s+)?(?:searched|looked\s+up|returned|gave|pulled|fetched|"
                r"used|picked|matched|resolved|geocoded|defaulted)\b[^.?!;]{0,60}?"
                r"\b(?:rather\s+than|instead\s+of)\b|"
                r"\b(?:user|you)\s+(?:wanted|asked\s+for|requested)\s+[^.?!;]{1,30}[;,]\s*"
                r"(?:redo|re-?do|retry|re-?run|call\s+again|fix)"),
             needs=('when i', 'rather than', 'instead of', 'wanted', 'asked for', 'requested')),
    TextRule("not plausible / not a valid time / doesn't look complete / doesn't square", "problem",
             _r(r"\b(?:is|are|was|were|'s|seems?|sounds?)\s+(?:not|n't|hardly|barely)\s+(?:a\s+|an\s+)?"
                r"(?:plausible|realistic|believable|credible|valid|real|possible)\b|"
                r"\b(?:isn't|aren't|wasn't)\s+(?:a\s+|an\s+)?(?:plausible|realistic|believable|"
                r"credible|valid|real|possible)\b|"
                r"\b(?:does\s*n[o']t|doesn't|does\s+not|did\s*n[o']t|didn't)\s+(?:look|seem|appear)\s+"
                r"(?:to\s+be\s+)?(?:complete|right|correct|plausible|real|valid|accurate|realistic|"
                r"current|up\s+to\s+date)\b|"
                r"\b(?:does\s*n[o']t|doesn't|does\s+not|did\s*n[o']t|didn't)\s+(?:square|tally|"
                r"jibe|reconcile)\s+with\b"),
             guard_if=True,
             needs=('not', "n't", 'hardly', 'barely')),
    TextRule("stuck / glitched / the data is a bit stale", "problem",
             _r(r"\b(?:looks?|seems?|appears?|is|was|got)\s+(?:to\s+be\s+)?(?:\w+\s+)?(?:stuck|frozen)\b|"
                r"\b(?:has\s*n[o']t|hasn't|has\s+not)\s+(?:been\s+)?updated\s+(?:since|for|in)\b|"
                rf"\b{_SOURCE}\s+(?:\w+\s+)?(?:glitched|hiccup(?:ed|ped)|choked|flaked|"
                r"misbehaved|froze)\b|"
                r"\bcame\s+back\s+without\s+(?:a|an|any)\b|"
                r"\b(?:data|results?|prices?|info\w*|feed|figures|numbers|rates?|listing)(?:'s|\s+is|"
                r"\s+are|\s+seems?|\s+looks?|\s+may\s+be|\s+might\s+be|\s+could\s+be)\s+(?:a\s+"
                r"(?:little|bit)\s+|slightly\s+|rather\s+|quite\s+|somewhat\s+|probably\s+)?"
                r"(?:stale|outdated|out\s+of\s+date|old)\b"),
             guard_if=True, guard_negation=True,
             needs=('stuck', 'frozen', 'froze', 'updated', 'glitch', 'hiccup', 'choked', 'flaked',
                    'misbehaved', 'without', 'stale', 'outdated', 'out of date', 'old')),
    TextRule("understatement: small problem / not ideal / oops / take it with caution", "problem",
             _r(r"^\W*(?:(?:a\s+)?(?:small|slight|minor|tiny|quick|one)\s+)?(?:problem|snag|issue|"
                r"hiccup|glitch)\s*[:—–-]|^\W*(?:not\s+ideal|uh-?oh|oops|whoops)\b|"
                r"\b(?:take|treat|read|use)\s+(?:it|this|that|these|them|those|the\s+\w+)\s+with\s+"
                r"(?:caution|care|some\s+caution)\b|"
                r"\b(?:seems?|looks?|is|are)\s+(?:\w+\s+)?too\s+(?:old|stale|outdated)\b|"
                r"\b(?:400|401|403|404|408|409|422|429|500|502|503|504)\b\s*[:(-]?\s*(?:bad\s+request|"
                r"unauthori[sz]ed|forbidden|not\s+found|request\s+timeout|conflict|unprocessable|"
                r"too\s+many\s+requests|internal\s+server\s+error|bad\s+gateway|"
                r"service\s+unavailable|gateway\s+time-?out)\b"),
             guard_if=True,
             needs=('problem', 'snag', 'issue', 'hiccup', 'glitch', 'ideal', 'uh', 'oops',
                    'caution',
                    'care', 'too', '40', '42', '50')),
    TextRule("the same item twice / duplicated entries", "problem",
             _r(r"\b(?:returned|listed|showed|gave|lists|shows|has|had|contains|contained|"
                r"included)\s+(?:the\s+same\s+\w+|it|them|this|that|each\s+\w+)\s+twice\b|"
                r"\bduplicated?\s+(?:entries|results|records|rows|items|slots|events|lines)\b"),
             needs=('twice', 'duplicate')),
    TextRule("(es/pt/fr/it/de/ja/zh) doubtful / suspect / an input error", "problem",
             _r(r"\b(?:douteu(?:x|se|ses)|dubbi[oa]|duvidos[oa]s?|dudos[oa]s?|zweifelhaft\w*|"
                r"verdächtig\w*|fragwürdig\w*)\b|^\W*auffällig\b|"
                r"\b\w*(?:eingabe|tipp|daten|übertragungs|erfassungs)fehler\b|"
                r"一致して(?:いません|いない|おりません)|合って(?:いません|いない)|怪しい"),
             guard_if=True, guard_negation=True,
             needs=('douteu', 'dubbi', 'duvidos', 'dudos', 'zweifel', 'verdächtig', 'fragwürdig',
                    'auffällig', 'fehler', '一致', '合って', '怪し')),
    TextRule("so none is available (after a named problem)", "decline",
             _r(r"\bso\s+(?:no|there's\s+no|there\s+is\s+no)\s+(?:\w+\s+){0,2}(?:is\s+|are\s+)?"
                r"available\b|\b(?:is|are)\s+(?:not|n't)\s+available\s+(?:right\s+now|at\s+the\s+"
                r"moment|for\s+now)\b"),
             with_problem=True,
             needs=('available',)),
    TextRule("I'd rather not quote it (after a named problem)", "decline",
             _r(r"\bI(?:'d|\s+would)\s+rather\s+not\s+(?:\w+\s+)?(?:quote|give|share|pass|report|"
                r"use|rely|provide|state|tell|repeat|guess|answer)"),
             with_problem=True,
             needs=('rather not',)),
    # -- v4: Dutch, Russian, Polish, Korean and Turkish, one rule per signal ------------------
    TextRule("(nl/ru/pl/ko/tr) an error / failed / wrong / does not match / odd", "problem",
             _r(r"\b(?:foutmelding|mislukt\w*|foutie\w*|onjuist\w*|ongeldig\w*|verdacht\w*|"
                r"onvolledig\w*|verouderd\w*|vreemd\w*|klop(?:t|pen)\s+(?:\w+\s+)?niet|"
                r"kom(?:t|en)\s+(?:\w+\s+)?niet\s+"
                r"overeen|verkeerde?\s+\w+|(?:een|de)\s+fout)\b|"
                r"(?:ошибк\w*|ошибок|не\s+удалось|неверн\w*|неправильн\w*|некорректн\w*|"
                r"не\s+совпада\w*|не\s+соответству\w*|странн\w*|подозрительн\w*|неполн\w*|"
                r"устаревш\w*|сбо[йя]|тайм-?аут|друг(?:ой|ого|ую|ие)\s+(?:город|пациент|товар|"
                r"дат|рейс|врач))(?!\w)(?!\s+нет)|"
                r"\b(?:błąd\w*|błęd\w*|nie\s+powiodł\w*|nieprawidłow\w*|niepoprawn\w*|"
                r"nie\s+zgadza\w*|nie\s+pasuj\w*|dziwn\w*|podejrzan\w*|niepełn\w*|nieaktualn\w*|"
                r"niewłaściw\w*|limit\s+czasu|inn(?:e|ego|y|ą)\s+(?:miast\w*|pacjent\w*|produkt\w*|"
                r"dat\w*))|"
                r"(?:오류|에러|실패|잘못(?:된|되었|됐)|일치하지\s*않|맞지\s*않|이상(?:한|합니다|하네요|해요)|"
                r"의심스러|불완전|오래된\s*데이터|시간\s*초과|다른\s*(?:도시|환자|날짜|제품))"
                r"(?!\w*\s*(?:가|는|이)?\s*없)|"
                r"\b(?:hata(?!\s*(?:yok|bulunamad))\w*|başarısız\w*|yanlış\w*|eşleşmiyor|"
                r"uyuşmuyor|tuhaf\w*|garip\w*|şüpheli\w*|eksik\w*|güncel\s+değil|zaman\s+aşımı|"
                r"geçersiz\w*|farklı\s+bir\s+(?:şehir|hasta|tarih|ürün))"),
             guard_if=True, guard_negation=True,
             needs=('fout', 'mislukt', 'onjuist', 'ongeldig', 'verdacht', 'onvolledig',
                    'verouderd', 'vreemd', 'klop', 'kom', 'verkeerd', 'ошиб', 'не ', 'невер',
                    'неправ', 'некорр', 'странн', 'подозр', 'неполн', 'устар', 'сбо', 'тайм',
                    'друг', 'błąd', 'błęd', 'nie ', 'nieprawid', 'niepopraw', 'dziwn', 'podejrz',
                    'niepełn', 'nieaktual', 'niewłaś', 'limit', 'inn', '오류', '에러', '실패',
                    '잘못',
                    '일치', '맞지', '이상', '의심', '불완전', '오래된', '초과', '다른', 'hata',
                    'başar', 'yanl', 'eşleşmiyor', 'uyuşmuyor', 'tuhaf', 'garip',
                    'şüpheli', 'eksik', 'güncel', 'zaman', 'geçersiz', 'farkl')),
    TextRule("(nl/ru/pl/ko/tr) retry", "retry",
             _r(r"\b(?:opnieuw|nogmaals|nog\s+een\s+keer|повтор\w*|ещё\s+раз|еще\s+раз|заново|"
                r"ponownie|jeszcze\s+raz|ponawiam\w*|tekrar\w*|yeniden)\b|"
                r"(?:다시|재시도|재검색|재조회)"),
             needs=('opnieuw', 'nogmaals', 'nog een', 'повтор', 'раз', 'заново', 'ponown',
                    'jeszcze', 'ponawiam', 'tekrar', 'yeniden', '다시', '재시도', '재검색',
                    '재조회')),
    TextRule("(nl/ru/pl/ko/tr) check", "check",
             _r(r"\b(?:controleer\w*|verifie\w*|verifië\w*|dubbelcheck\w*|vergelijk\w*|"
                r"провер\w*|сверю|сверить|sprawdz\w*|sprawdź\w*|sprawdzę|zweryfikuj\w*|"
                r"porówna\w*|kontrol\s+ed\w*|doğrula\w*|teyit\s+ed\w*)|"
                r"(?:확인하겠|확인해\s*보겠|확인합니다|검증|대조)"),
             needs=('controle', 'verifi', 'dubbelcheck', 'vergelijk', 'провер', 'свер', 'sprawdz',
                    'sprawdź', 'zweryfik', 'porówna', 'kontrol', 'doğrula', 'teyit', '확인', '검증',
                    '대조')),
    TextRule("(nl/ru/pl/ko/tr) could you confirm / which did you mean", "question",
             _r(r"\b(?:kunt\s+u\s+(?:\w+\s+){0,3}bevestigen|kun\s+je\s+(?:\w+\s+){0,3}bevestigen|"
                r"bedoelt\s+u|"
                r"bedoel\s+je|подтвердите|уточните|вы\s+имели\s+в\s+виду|potwierdź\w*|"
                r"czy\s+chodziło|miał(?:eś|aś|/a)?\s+na\s+myśli|doprecyzuj\w*|onaylar\s+mısınız|"
                r"teyit\s+eder\s+misiniz|demek\s+istediniz|kastettiniz)|"
                r"(?:확인해\s*주시겠|확인해\s*주세요|말씀하신\s*(?:것|게)|맞으신가요|맞나요\s*\?)"),
             needs=('bevestigen', 'bedoel', 'подтвердите', 'уточните', 'имели', 'potwierdź',
                    'chodziło', 'myśli', 'doprecyz', 'onaylar', 'teyit', 'istediniz',
                    'kastettiniz', '확인해', '말씀하신', '맞으신', '맞나요')),
    TextRule("(nl/ru/pl/ko/tr) cannot give / confirm it", "decline",
             _r(r"\b(?:kan\s+(?:ik\s+)?(?:\w+\s+){0,3}niet\s+(?:bevestigen|geven|zeggen|noemen)|"
                r"не\s+могу\s+(?:\w+\s+)?(?:дать|сказать|подтвердить|назвать|указать)|"
                r"nie\s+mogę\s+(?:\w+\s+)?(?:podać|potwierdzić|powiedzieć|wskazać)|"
                r"veremiyorum|söyleyemiyorum|onaylayamıyorum|belirtemiyorum)|"
                r"(?:알려|드릴|제공할|확인해\s*드릴|말씀드릴)\s*수\s*없"),
             needs=('kan', 'не могу', 'nie mogę', 'veremiyorum', 'söyleyemiyorum',
                    'onaylayamıyorum', 'belirtemiyorum', '수')),
    # -- TENSION: the tool's report, then a fact set against it ("says A, but B") ----------
    TextRule("the tool says A, but B", "tension",
             _r(rf"\b{_SOURCE}\s+(?:also\s+|still\s+|clearly\s+)?"
                r"(?:says?|said|shows?|showed|shown|lists?|listed|indicates?|indicated|"
                r"reports?|reported|returned|gave|claims?|claimed|states?|stated|reads?|"
                r"marks?|marked|has\s+it|had\s+it)\b(?:[^.?!]|\.(?=\d)){0,100}?"
                r"(?:(?:,|;|—|–|\s-)\s*(?:but|yet|whereas)|\bbut)"
                r"\s+(?!I\b|I'|I’|we\b|let\b|let's|you\b|if\b|still\b|otherwise\b|also\b|"
                r"here\b|for\s+now\b|either\s+way\b|anyway\b)"
                # the clause set against the report names another source or a conflict
                rf"(?:[^.?!]|\.(?=\d)){{0,80}}?\b(?:{_SOURCE}|order|booking|reservation|invoice|"
                r"receipt|ticket|label|address|lists?|says?|shows?|reads?|has|overlap\w*|"
                r"conflict\w*|contradict\w*|no|not|never|zero|none|nothing|different|another|"
                r"that's|that\s+is|which\s+is|its\s+own)\b|"
                r"\b(?:dice|indica|muestra|figura|aparece|devolvió|marca|indique|affiche|dit|"
                r"montre|annonce|renvoie|mostra|riporta|segna|diz|consta|mostra|zeigt|meldet|"
                r"liefert|laut)\b(?:[^.?!]|[.,](?=\d)){0,100}?\b(?:pero|mais|ma|mas|aber|jedoch|doch|però)\s+"
                r"(?!(?:je|yo|io|eu|ich|wir|nous|vous|voy|vou|vado)\b)|"
                r"(?:では|によると)[^。]{0,60}(?:ですが|ますが|だが|けど|のに)|"
                r"(?:显示|顯示|说|說|返回|写着|寫著)[^。]{0,60}(?:但|但是|可是|却|卻)"),
             guard_if=True,
             needs=('say', 'said', 'show', 'list', 'indicat', 'report', 'returned', 'gave',
                    'claim', 'state', 'read', 'mark', 'has it', 'had it', 'dice', 'indica',
                    'muestra', 'figura', 'aparece', 'devolvió', 'marca', 'indique', 'affiche',
                    'dit', 'montre', 'annonce', 'renvoie', 'mostra', 'riporta', 'segna', 'diz',
                    'consta', 'zeigt', 'meldet', 'liefert', 'laut', 'では', 'によると', '显示',
                    '顯示', '说', '說', '返回', '写着', '寫著')),
)
"""The text rules, each applied per sentence. See the module docstring for how signals map
to kinds."""

_EXCLUDE: tuple[re.Pattern[str], ...] = (
    # scope disclaimers are not declining this answer
    _r(r"\b(?:provide|give|offer|make)\s+(?:\w+\s+)?(?:medical|legal|financial|professional|"
       r"investment|tax)\s+"
       r"(?:advice|diagnos\w+|opinions?)\b"),
    _r(r"医疗建议|醫療建議|法律建议|医療(?:的な)?(?:アドバイス|助言)|法的な(?:アドバイス|助言)|"
       r"\b(?:conseils?|consejos?|consigli|conselhos?|aconselhamento|asesoramiento)\s+(?:de\s+)?"
       r"(?:m[ée]dic|juridi|jur[íi]dic|legal|financ|medic|legal)\w*|"
       r"\b(?:medizinische\w*|rechtliche\w*|finanzielle\w*)\s+(?:beratung|rat)|rechtsberatung"),
    # ... in every language: a diagnosis, treatment or investment advice is out of scope
    _r(r"\b(?:provide|give|offer|make)\s+(?:you\s+)?(?:a\s+)?diagnos[ie]s\b|"
       r"\b(?:dar|hacer|ofrecer|emitir|fazer|poser|donner|établir|fare|formulare|stellen|geben)"
       r"\s+(?:\w+\s+)?(?:un|una|um|uma|de|d'|une|eine?n?)?\s*(?:diagnóstico|diagnostic|diagnosi|"
       r"diagnose)\b|诊断|診斷|治疗建议|治療建議|用药建议|用藥建議|投资建议|投資建議|理财建议|"
       r"法律意见|法律意見|专业建议|專業建議|診断(?:は|を|が|の)|医学的(?:な)?(?:助言|アドバイス|判断)|"
       r"投資(?:の)?(?:助言|アドバイス)"),
    # what an error usually means, told as advice ("a timeout usually means ...")
    _r(r"\b(?:usually|typically|generally|often|normally)\s+means\b"),
    # an offer put as a confirmation ("please confirm if you'd like me to book it")
    _r(r"\bplease\s+confirm\s+(?:if|whether)\s+you(?:'d|\s+would)?\s+(?:like|want)\b"),
    # an error margin or error bars are the data's precision, not a fault
    _r(r"\berror\s+(?:margin|bars?)\b|\bmargins?\s+of\s+error\b"),
    # scheduled downtime told as information ("down for maintenance every Sunday")
    _r(r"\bmaintenance\b[^.?!]{0,40}\b(?:every|each|weekly|nightly|daily)\b|"
       r"\b(?:every|each|weekly|nightly|daily)\b[^.?!]{0,40}\bmaintenance\b"),
    # a capability limit ("I can't provide forecasts beyond 10 days") is not declining this one
    _r(r"\b(?:can't|cannot|can\s+not|unable\s+to)\s+(?:provide|give|show)\s+[^.?!]{0,30}"
       r"\b(?:beyond|further\s+than|older\s+than|more\s+than)\s+\d"),
)
_NEGATION_BEFORE = re.compile(r"\b(?:no|not|nothing(?:'s|\s+is|\s+was|\s+looks|\s+seems)|without|"
                              r"never|free\s+(?:of|from)|"
                              r"sin|sans|senza|sem|geen|niet|zonder|нет|не|без|nie|bez|brak|"
                              r"ohne|keine?n?|"
                              r"aucune?|ningún|ninguna|nessun[oa]?|nenhum[a]?)\b"
                              r"(?:\W+\w+){0,3}\W*$|(?:没有|沒有|无|無|なし)\W{0,2}$",
                              re.IGNORECASE)
_IF_BEFORE = re.compile(r"\b(?:if|si|wenn|falls)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<!\b[A-Z][a-z]\.)(?<!\bMrs\.)(?<=[.!?])\s+|(?<=[。！？])|\n+")
"""A sentence ends at . ! ? (not after "Dr.", "Mr.", "Mrs.", "St."), at 。！？ and at a newline."""


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


_ALL_NEEDS: frozenset[str] = frozenset(w for r in TEXT_RULES for w in r.needs)
_RULES_ALWAYS: tuple[TextRule, ...] = tuple(r for r in TEXT_RULES if not r.with_problem)
_RULES_WITH_PROBLEM: tuple[TextRule, ...] = tuple(r for r in TEXT_RULES if r.with_problem)
_NEEDS_BY_PAIR: dict[str, tuple[str, ...]] = {
    pair: tuple(w for w in _ALL_NEEDS if w[:2] == pair)
    for pair in {w[:2] for w in _ALL_NEEDS if len(w) >= 2}}
_NEEDS_SHORT: tuple[str, ...] = tuple(w for w in _ALL_NEEDS if len(w) < 2)
_PAIRS: frozenset[str] = frozenset(_NEEDS_BY_PAIR)


def _present_needs(low: str) -> set[str]:
    """The `needs` words in a lower-cased sentence: only the words whose first two
    characters occur in it are looked for (the same set as testing every word, faster)."""
    pairs = {low[i:i + 2] for i in range(len(low) - 1)} & _PAIRS
    found = {w for p in pairs for w in _NEEDS_BY_PAIR[p] if w in low}
    found.update(w for w in _NEEDS_SHORT if w in low)
    return found


def text_signals(text: str | None, *, gate: bool = True) -> set[Signal]:
    """The signals the text rules find in `text` (empty for none). `gate=False` skips the
    `needs` gate (the same result, slower: for tests)."""
    out: set[Signal] = set()
    read: list[tuple[str, set[str]]] = []
    for sentence in _sentences(text or ""):
        if any(p.search(sentence) for p in _EXCLUDE):
            continue
        present = _present_needs(sentence.lower())
        read.append((sentence, present))
        _apply(_RULES_ALWAYS, sentence, present, out, gate)
    if "problem" in out:  # `with_problem` rules count only then (read only then: faster)
        for sentence, present in read:
            _apply(_RULES_WITH_PROBLEM, sentence, present, out, gate)
    return out


def _apply(rules: Sequence[TextRule], sentence: str, present: set[str], out: set[Signal],
           gate: bool) -> None:
    """Add to `out` the signal of each rule that matches `sentence` (guards applied)."""
    for rule in rules:
        if rule.signal in out:
            continue
        if gate and rule.needs and present.isdisjoint(rule.needs):
            continue
        for m in rule.pattern.finditer(sentence):
            before = sentence[: m.start()]
            if rule.guard_if and _IF_BEFORE.search(before):
                continue
            if rule.guard_negation and _NEGATION_BEFORE.search(before):
                continue
            out.add(rule.signal)
            break


def classify_text(text: str | None, where: Where, call: CallRelation = None) -> Kind | None:
    """The kind of noticing one output's text shows (None: none), given where it sits:
    beside a call to the same tool as the reference step or to another tool, or a text
    with no call (`final` / `text_turn`)."""
    s = text_signals(text)
    if where == "beside_call":
        if call == "same_tool" and ("retry" in s or ("problem" in s and "continue" not in s)):
            return "requery"
        if call == "other_tool" and ({"problem", "tension"} & s) and ({"check", "retry"} & s):
            return "verify"
    if "question" in s:
        return "clarify"
    if "decline" in s:
        return "abstain"
    if "problem" in s:
        return "mention"
    return None


# -- events ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Noticing:
    """The detector's result for one trace: `noticed` None when there is no reference step
    (no observation, or an injection that never reached one) or when the trace records no
    model turn to read (`UNOBSERVABLE`)."""

    noticed: bool | None
    kind: Kind | None = None
    unscored: bool = False
    """`noticed` is undefined because a reading it needed was unscored (`TextReader`)."""


NOT_DEFINED = Noticing(None)
UNSCORED = "unscored"
Reading = Kind | Literal["unscored"] | None
TextReader = Callable[[int, str, Where, CallRelation], Reading]
"""Reads one output's text in place of the text rules: (its event index, text, where,
call) → a kind, None (no sign), or `UNSCORED` (an LLM classifier's stored reading that is
missing or unparsable)."""
UNOBSERVABLE = "not observable without model turns; use the gateway"
"""Why `noticed` is undefined for a trace that records no model turn: an external agent's
turns are recorded only when its model calls go through `agentprop gateway`
(docs/external-agents.md); an imported release records none either."""


def turns_recorded(trace: Trace) -> bool:
    """Whether the trace records the agent's model turns, which the detector reads."""
    return any(isinstance(ev, ModelCallEvent) for ev in trace.events)


def _norm(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _is_error(obs: Any) -> bool:
    return isinstance(obs, dict) and isinstance(obs.get("error"), dict)


def restores(args: dict[str, Any], proposed: dict[str, Any], param: str) -> bool:
    """Whether `args` re-issue the proposed call: `param` has its proposed value again and
    every other argument both calls set agrees. The agreement matters: the next step of a
    plan often reuses the value for another entity (the same date for a second city),
    which is not a re-query (nor a correction)."""
    if param not in args or _norm(args[param]) != _norm(proposed.get(param)):
        return False
    return all(_norm(args[k]) == _norm(v) for k, v in proposed.items() if k in args)


@dataclass(frozen=True)
class _Reference:
    at: int  # event index of the reference observation
    tool: str
    executed: dict[str, Any]
    proposed: dict[str, Any]
    error: bool
    error_param: str | None
    observation_level: bool = False  # out:*/fault:*: the call was right, what it saw was not


def _structural_requery(args: dict[str, Any], ref: _Reference) -> bool:
    """A same-tool call that redoes the reference call (see the module docstring)."""
    if _norm(args) == _norm(ref.executed):
        return ref.observation_level  # re-issuing a right call is a retry only then
    changed = [k for k, v in ref.proposed.items()
               if k not in ref.executed or _norm(v) != _norm(ref.executed[k])]
    if any(restores(args, ref.proposed, k) for k in changed):
        return True
    if not ref.error:
        return False
    if ref.error_param is None:
        return True
    differing = {k for k in set(args) & set(ref.executed)
                 if _norm(args[k]) != _norm(ref.executed[k])}
    added = set(args) - set(ref.executed)
    return ref.error_param in differing | added and differing <= {ref.error_param}



def _reference(trace: Trace, injection: InjectionEvent | None,
               proposed: dict[str, Any] | None) -> _Reference | None:
    results = [(i, ev) for i, ev in enumerate(trace.events) if isinstance(ev, ToolResultEvent)]
    if injection is None:
        if not results:
            return None
        at, r = results[0]
        return _Reference(at, r.name, r.arguments, r.arguments, *_error_of(r.observation))
    if injection.status != "applied":
        return None
    if injection.protocol == "api":
        return _api_reference(trace, injection)
    cid = injection.call_id
    hit = next(((i, r) for i, r in results if cid and r.call_id == cid), None)
    if hit is None:
        hit = next(((i, r) for i, r in results if r.counterfactual is not None), None)
    if hit is None:
        return None
    at, r = hit
    return _Reference(at, r.name, r.arguments, proposed if proposed is not None else r.arguments,
                      *_error_of(r.observation),
                      observation_level=injection.protocol in ("out", "fault"))


def _api_reference(trace: Trace, injection: InjectionEvent) -> _Reference | None:
    """A model-API fault's reference step: the completion the agent received for the
    faulted call (the turn after the fault: its retry's, or the cut one), else the fault
    itself (it received only an error). No tool call is its."""
    at = next((i for i, ev in enumerate(trace.events) if ev is injection), None)
    if at is None:  # a copy of the trace's event
        at = next((i for i, ev in enumerate(trace.events) if ev == injection), None)
    if at is None:
        return None
    if isinstance(injection.received, dict) and "text" in injection.received:
        at = next((i for i in range(at + 1, len(trace.events))
                   if isinstance(trace.events[i], ModelCallEvent)), at)
    return _Reference(at, "", {}, {}, False, None, observation_level=True)


def _error_of(obs: Any) -> tuple[bool, str | None]:
    """(is an error observation, the parameter it names)."""
    if not _is_error(obs):
        return False, None
    param = obs["error"].get("param")
    return True, str(param) if param else None


def notice(trace: Trace, injection: InjectionEvent | None = None,
           proposed: dict[str, Any] | None = None, read: TextReader | None = None
           ) -> Noticing:
    """Whether, and how, the agent noticed a problem after the reference step.

    `injection`: the trace's P2 injection event (None for a trace without one);
    `proposed`: the targeted call's arguments as the agent proposed them; `read`: reads
    each output's text instead of the text rules (structural requery still counts); an
    unscored reading before any sign makes `noticed` undefined, never False."""
    ref = _reference(trace, injection, proposed)
    if ref is None or not turns_recorded(trace):  # nothing the agent said can be read
        return NOT_DEFINED
    for at in range(ref.at + 1, len(trace.events)):
        ev = trace.events[at]
        if not isinstance(ev, ModelCallEvent):
            continue
        classify = classify_text if read is None else partial(read, at)
        kind = _output_kind(ev.output.text, ev.output.reasoning, ev.output.tool_calls, ref,
                            classify)
        if kind == UNSCORED:
            return Noticing(None, unscored=True)
        if kind is not None:
            return Noticing(True, kind)  # type: ignore[arg-type]
    return Noticing(False)


def _output_kind(text: str | None, reasoning: str | None, calls: Sequence[Any],
                 ref: _Reference,
                 classify: Callable[[str, Where, CallRelation], Reading] = classify_text,
                 ) -> Reading:
    full = "\n".join(t for t in (reasoning, text) if t)
    same = [c for c in calls if c.name == ref.tool]
    if any(_structural_requery(c.arguments, ref) for c in same):
        return "requery"
    if calls:
        relation: CallRelation = "same_tool" if same else "other_tool"
        return classify(full, "beside_call", relation)
    return classify(full, "final", None)
