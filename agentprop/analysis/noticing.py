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
Signal = Literal["problem", "retry", "check", "question", "decline", "continue"]


@dataclass(frozen=True)
class TextRule:
    """One documented text rule: a pattern that, in one sentence, gives a signal.

    `guard_if`: the match does not count when the sentence says "if" before it (a tip,
    "if the forecast looks wrong, check your app"). `guard_negation`: it does not count
    when "no", "not", "without", "never" or "free" comes within three words before it
    ("no discrepancies", "without errors"). `needs`: words the pattern cannot match
    without (lower case); a sentence with none of them skips the rule (a fast gate, tested
    to change no result)."""

    name: str
    signal: Signal
    pattern: re.Pattern[str]
    guard_if: bool = False
    guard_negation: bool = False
    needs: tuple[str, ...] = ()


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


_NEG = r"(?:does\s*n[o']t|do\s*n[o']t|did\s*n[o']t|does not|do not|did not|don't|doesn't|didn't)"
_WHO = r"(?:you|the user|your question|the question|the request|your request|I|we)"
_ASKED = r"(?:asked|requested|wanted|meant|mentioned|named|specified|need|needs|wants|gave)"
_UNIT = (r"(?:kilo)?grams?|pounds?|lbs?|kg|celsius|fahrenheit|kelvin|miles|kilomet(?:er|re)s|km|"
         r"mph|km/h|met(?:er|re)s|feet|dollars|euros|utc|local\s+time")
_ENTITY = (r"(?:city|cities|date|day|patient|product|id|record|location|item|value|parameter|"
           r"argument|person|event|drug|medication|doctor|time|format|one|data|result|results|"
           r"entry|article|order|slot|specialty|account|page|profile|user|customer|flight|"
           r"booking|appointment|reservation|room|file|report|document|model|version|listing|"
           r"store|hotel|address|country|region|town|station|year|month|week)")

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
                r"\s+(?:a|an)\s+(?:different|another|other)\b|\bbelongs?\s+to\s+(?:someone|somebody)"
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
             _r(r"\b(?:for|is|are|shows?|lists?|refers?\s+to|returned|came\s+back|read|parsed|"
                r"interpreted|treated|took)\b[^.?!]{0,40}"
                r"\b(?:rather\s+than|instead\s+of)\b"),
             needs=('rather', 'instead')),
    TextRule("but you asked about", "problem",
             _r(r"(?:\b(?:but|while|whereas|although|even\s+though)|\b(?!(?:sure|yes|ok|okay|"
                r"certainly|course|great|right|here)\b)\w+\s*[;—–])\s+(?:the\s+(?:[\w-]+\s+){0,2})?"
                rf"{_WHO}\s+(?:\w+\s+)?(?:{_ASKED}|said|was about|is about|mentions?|were)\b|"
                r"[;—–,]\s+(?:but\s+)?(?:you're|you\s+are|you\s+were)\s+(?:asking|looking|"
                r"interested)\b|,\s+when\s+you\s+(?:asked|wanted|meant)\b|\band\s+you\s+asked\s+"
                r"about\b"),
             needs=('but', 'while', 'whereas', 'although', 'though', ';', '—', '–', 'you')),
    TextRule("is for X, not Y", "problem",
             _r(r"\b(?:for|to|is|are|shows?|returned|about|station\s+in|that's|it's|belongs?\s+to|"
                r"belong\s+to)\s+[^.;?!]{1,40}?,\s+not\s+(?:for\s+)?(?:the\s+\w+|['\"]?(?-i:[A-Z0-9])|"
                rf"\w+\s+\d|(?:in\s+)?(?:{_UNIT})\b)"),
             needs=('not',)),
    TextRule("not X as you asked", "problem",
             _r(rf"\bnot\b[^.?!]{{0,40}}\bas\s+(?:you\s+|the user\s+)?(?:asked|requested)|"
                rf"\bnot\s+the\s+(?:\w+\s+){{0,2}}{_WHO}\s+(?:\w+\s+)?{_ASKED}\b"),
             needs=('not',)),
    TextRule("doubt about the result", "problem",
             _r(r"\b(?:not|n't)\s+(?:fully\s+|entirely\s+|very\s+|completely\s+)?(?:confident|"
                r"sure|certain)\s+(?:in|about|of|that)\s+(?:this|the|that|these|it)\b"
                r"(?:\s+(?:result|results|data|answer|value|information|record|output|is))?"),
             needs=('confident', 'sure', 'certain')),
    TextRule("doubt that the data is current or complete", "problem",
             _r(r"(?:(?:\bnot|n't)\s+(?:\w+\s+)?(?:sure|certain|confident|convinced)|\bunsure|"
                r"\buncertain)\s+(?:that\s+|whether\s+|"
                r"if\s+)?(?:this|that|it|these|the)\s+(?:[\w-]+\s+){0,2}(?:is|are|was|were)\s+"
                r"(?:still\s+)?(?:up[- ]to[- ]date|current|complete|accurate|correct|right|"
                r"reliable|exhaustive|comprehensive|valid)\b|\b(?:probably|likely|possibly|may|might)\s+(?:be\s+)?not\s+(?:be\s+)?"
                r"(?:current|complete|up[- ]to[- ]date|accurate|reliable|correct|right)\b|"
                r"\b(?:looks?|seems?|appears?)\s+(?:to\s+be\s+)?partial\b|\b(?:hasn't|has\s+not|"
                r"haven't|have\s+not)\s+been\s+updated\b|\b(?:stops?|ends?|cuts?\s+off)\s+(?:partway|"
                r"abruptly|mid-?\w+)|\b(?:may|might|could)\s+be\s+more\s+\w+\s+than\s+(?:shown|"
                r"listed|returned)\b|"
                r"\b(?:looks?|seems?|appears?|is|are|was|be|probably|possibly)\s+(?:\w+\s+)?"
                r"(?:truncated|incomplete|cut\s+(?:off|short)|outdated|out\s+of\s+date|stale)\b|"
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
                r"\bgrain\s+of\s+salt\b|\b(?:wary|skeptical|sceptical)\s+(?:of|about)\b|\b(?:I|we)\s+(?:\w+\s+)?(?:suspect|doubt)\s+(?:that\s+|"
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
                r"(?:quite\s+)?agree\b|\bsays?\b[^.?!]{0,80}\bbut\s+(?:the|your|its|another|"
                r"a)\s+(?:[\w-]+\s+){1,3}(?:says?|includes?|lists?|shows?)\b"),
             guard_if=True, guard_negation=True,
             needs=('contradict', 'conflict', 'disagree', 'agree', 'but', 'differ')),
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
                rf"\s+{_WHO}\s+(?:\w+\s+)?(?:{_ASKED})\s+(?:about|for)\b|"
                rf"\b(?:note\s+that|however,?|though,?)\s+{_WHO}\s+(?:\w+\s+)?(?:{_ASKED})\s+"
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
                r"\bdifferent\s+\w+\s+for\s+the\s+same\b|\btwo\s+(?:calendars|sources|tools|records|"
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
                r"\b(?:data|result|results|response|output|record|value|values)\s+(?:is|are|seems?|"
                r"looks?)\s+(?:\w+\s+)?(?:broken|garbled|corrupt\w*|nonsens\w*|bogus|off)\b|"
                r"\bphysically\s+impossible\b|\b(?:which|that|this)\s+(?:isn't|is\s+not)\s+possible\b|\b(?:probably|likely|presumably)\s+meant\b|"
                r"\bwrong\s+(?-i:[A-Z])|\bambiguous\b|\b(?:two|several|multiple|more\s+than\s+one)\s+"
                r"(?:\w+\s+)?(?:patients|records|matches|results|cities|people|products|entries|"
                r"accounts|places|locations)\s+(?:with|named|called|match|matching)\b|"
                r"\b(?:units?|time\s?zone|currency)\s+(?:isn't|is\s+not|wasn't|was\s+not)\s+"
                r"(?:given|specified|stated|shown|clear)\b|\b(?:with\s+no\s+|without\s+(?:a\s+|any\s+)?)"
                r"(?:units?|time\s?zone|currency)\b|\bwhich\s+(?:I|we)\s+(?:\w+\s+)?doubt\b"),
             guard_if=True, guard_negation=True,
             needs=('differ', 'not', 'than', 'instead', 'doubt', 'add up', 'believe', 'broken',
                    'garbled', 'corrupt', 'nonsens', 'bogus', 'wrong', 'ambiguous', 'two',
                    'several', 'multiple', 'more than one', "n't", 'unit', 'zone', 'currency',
                    'off', 'impossible', 'meant', 'possible')),
    # -- RETRY: it redoes the call ----------------------------------------------------------
    TextRule("again / retry / instead", "retry",
             _r(r"\b(?:again|retry|retrying|re-?query|re-?querying|re-?run|re-?issue|once more|"
                r"instead)\b|\b(?:correct|fix)\s+(?:that|this|it|the\s+call|my\s+call)\b|"
                rf"\bwith\s+the\s+(?:right|correct|proper|valid)\s+(?:\w+\s+)?"
                rf"(?:{_ENTITY}|arguments?|parameters?|inputs?)\b"),
             needs=('again', 'retry', 'requer', 're-quer', 'rerun', 're-run', 'reissue',
                    're-issue', 'once more', 'instead', 'correct', 'fix', 'right', 'proper',
                    'valid')),
    # -- CHECK: it checks the problem --------------------------------------------------------
    TextRule("verify / confirm / double-check", "check",
             _r(r"\b(?:verify|confirm|double-check|double check|cross-check|make sure|"
                r"check\s+(?:whether|if|that|which)|to\s+see\s+(?:which|whether|if))\b|"
                rf"\bfind\s+the\s+(?:right|correct|actual)\s+{_ENTITY}\b"),
             needs=('verify', 'confirm', 'double', 'cross-check', 'make sure', 'check', 'to see',
                    'find')),
    # -- CONTINUE: it goes on despite the problem (so a same-tool call is the next step) ---
    TextRule("continue anyway", "continue",
             _r(r"\b(?:continue|proceed|carry on|move on|anyway|regardless|nevertheless)\b"),
             needs=('continue', 'proceed', 'carry on', 'move on', 'anyway', 'regardless',
                    'nevertheless')),
    # -- QUESTION: it asks the user to confirm or clarify ----------------------------------
    TextRule("could you confirm / clarify / provide", "question",
             _r(r"\b(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:confirm|clarify|"
                r"double-check|double check|verify|check|specify|provide|re-?enter|resend|"
                r"tell me which|share|send|give me)\b"),
             needs=('you',)),
    TextRule("please confirm / specify / provide", "question",
             _r(r"\bplease\s+(?:confirm|clarify|specify|provide|double-check|re-?enter|give|enter|"
                r"share|choose|select)\b"),
             needs=('please',)),
    TextRule("did you mean / which X did you mean / is that correct", "question",
             _r(r"\b(?:did|do)\s+you\s+mean\b|\bwhich\s+(?:\w+\s+){1,2}(?:did|do)\s+you\s+mean\b|"
                r"\b(?:is|was)\s+(?:that|this)\s+(?:correct|right|what you meant)\s*\?|"
                r"\bare\s+you\s+(?:asking|referring)\s+(?:about|to)\b|\bwhich\s+(?:one|of\s+(?:them|"
                r"these|the\s+two))\s+(?:did\s+you\s+mean|do\s+you\s+mean|should\s+I\s+use|is\s+"
                r"(?:it|correct|right))\b|\bwhich\s+\w+\s+is\s+(?:it|correct|right)\s*\?"),
             needs=('mean', 'correct', 'right', 'asking', 'referring', 'which')),
    # -- DECLINE: it declines to give the answer --------------------------------------------
    TextRule("cannot give / answer / determine", "decline",
             _r(r"\b(?:can't|cannot|can not|unable to|not able to|won't|will not|wasn't able to|"
                r"was not able to|couldn't|could not|am not going to|won't be able to|"
                r"will not be able to)"
                r"\s+(?:reliably\s+|responsibly\s+|"
                r"accurately\s+)?(?:give|provide|tell|answer|determine|confirm|say|fulfil|"
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
                r"du|aus|von|sur)\s+)?)(?:(?:el|la|lo|los|las|o|"
                r"os|le|les|il|den|der|die|das)\s+|l['’])?(?-i:[A-Z0-9ÁÉÍÓÚÀÈÌÒÙÂÊÔÄÖÜ])|"
                r"\b(?:au\s+lieu\s+d[eu]|en\s+lugar\s+de|en\s+vez\s+de|invece\s+di|em\s+vez\s+de|"
                r"ao\s+invés\s+de|anstatt|statt)\s+(?:(?:la|le|el|il|o|a|den|der|die|das)\s+)?"
                r"(?-i:[A-Z0-9])|"
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
                r"incorrect\w*|incorret\w*|errad[oa]s?|erróne[oa]s?|erroné\w*|errat[oa]|"
                r"sbagliat[oa]|falsch|fehlerhaft|faux|fausse|fals[oa]|extrañ[oa]|estranh[oa]|étrange|stran[oa]|"
                r"seltsam|merkwürdig|komisch|bizarre|sospechos[oa]|suspeit[oa]|sospett[oa]|"
                r"truncad[oa]|tronqué\w*|troncat[oa]|abgeschnitten|desactualizad[oa]|"
                r"desatualizad[oa]|obsolète|veraltet)|"
                r"^\W*(?:bizarre|étrange|seltsam|merkwürdig|komisch|strano|extraño|estranho)\b|"
                r"\b(?:potrebbero|potrebbe|podrían|podría|poderiam|pourraient|könnten)\s+"
                r"(?:\w+\s+)?(?:mancare|faltar|manquer|fehlen)\b|"
                r"\b(?:probablemente|probabilmente|provavelmente|probablement|wahrscheinlich|"
                r"vermutlich|forse|talvez|quizás|peut-être|sûrement|seguramente|sicuramente|"
                r"certamente|bestimmt|clairement|claramente|chiaramente|offenbar)\s+(?:\w+\s+){0,2}(?:un\s+|une\s+|"
                r"uno\s+|um\s+|ein\s+)?(?:error|errore|erreur|erro|fehler)\b|"
                r"\b(?:me\s+méfierais|méfiez|no\s+(?:me\s+)?fiar[íi]a|não\s+confiaria|"
                r"non\s+mi\s+fiderei|nicht\s+(?:\w+\s+)?vertrauen)|"
                r"おかしい|変です|不自然|一致しな|一致しません|矛盾|不完全|信頼できな|正しくな|不正確|"
                r"間違って|誤って|誤りがあ|途中で切れ|不太对|不太對|不正确|不正確|不准确|不準確|错了|錯了|"
                r"(?:数据|數據|结果|結果|资料)[^。！？]{0,6}有问题|"
                r"奇怪|(?<!对)不对|(?<!對)不對|不一致|不符|对不上|對不上|不匹配|不完整|可疑|不可靠|有误|有誤"),
             guard_negation=True,
             needs=('no', 'não', 'ne', 'non', 'passt', 'passen', 'stimm', 'weicht', 'widersprech',
                    'contradic', 'contraddic', 'incomplet', 'unvollständig', 'incorrect',
                    'incorret', 'errad', 'erróne', 'erroné', 'errat', 'sbagliat', 'falsch',
                    'fehlerhaft', 'faux', 'fausse', 'falso', 'falsa',
                    'extrañ', 'estranh', 'étrange', 'stran', 'seltsam',
                    'merkwürdig', 'komisch', 'bizarre', 'sospech', 'suspeit', 'sospett', 'error',
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
                r"cidade|data|produto|città|paziente|prodotto|ville|patient|produit|date|dossier)"
                r"\s+(?:equivocad[oa]|incorrect[oa]?|errad[oa]|sbagliat[oa]|errat[oa])\b|"
                r"\bmauvaise?\s+(?:ville|patient|date|produit|dossier|personne)|"
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
                r"(?:データ|値|結果|情報)の?(?:誤り|間違い)|(?:データ|結果|値|情報|応答)に問題|(?:リクエスト|ご質問|ご指定|指定|依頼|質問)と(?:違|異な)|"
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
                    '古い', '最新', '不合理')),
    TextRule("(es/pt/fr/it/de/ja/zh) another patient / city / product", "problem",
             _r(r"\b(?:otro|otra|outro|outra|autre|altro|altra|anderen|anderes)\s+(?:paciente|"
                r"patient|paziente|patienten|usuario|usuário|utilisateur|utente|nutzers?|ciudad|"
                r"cidade|ville|città|stadt|producto|produto|produit|prodotto|produkts?|persona|"
                r"pessoa|personne|person|cliente|client|kunden|fecha|data|date|datum)\b|"
                r"(?:另一|别的|別的|別の|他の)\s*(?:位|个|個|名)?\s*(?:患者|病人|城市|用户|製品|商品|都市|"
                r"日付|日期|记录|記録|人)|"
                r"\b(?:problem|problema|problème)\w*\s+(?:mit|con|com|avec)\s+(?:\w+\s+)?(?:\w*abfrage|"
                r"\w*anfrage|suche|verbindung|server|dienst|tool|api|consulta|búsqueda|servidor|"
                r"sistema|herramienta|requête|recherche|serveur|outil|service|pesquisa|ferramenta|"
                r"richiesta|ricerca|servizio|connessione|conexión|conexão|connexion)"),
             needs=('problem', 'otro', 'otra', 'outro', 'outra', 'autre', 'altro', 'altra',
                    'anderen',
                    'anderes', '另一', '别的', '別的', '別の', '他の')),
    TextRule("(es/pt/fr/it/de/ja/zh) retry", "retry",
             _r(r"\b(?:de\s+nuevo|otra\s+vez|nuevamente|reintent\w*|vuelvo\s+a\s+\w+|novamente|"
                r"de\s+novo|à\s+nouveau|de\s+nouveau|réessa\w*|relance\w*|encore\s+une\s+fois|"
                r"recommenc\w*|di\s+nuovo|nuovamente|riprov\w*|ripeto|ancora\s+una\s+volta|erneut|"
                r"noch\s*(?:ein)?mal|wiederhole\w*)\b|もう一度|再検索|再試行|やり直|再度|再试|重试|"
                r"重新|再查|再次"),
             needs=('recommenc', 'nuevo', 'otra vez', 'nuevamente', 'reintent', 'vuelvo',
                    'novamente', 'novo', 'nouveau', 'réessa', 'relance', 'encore', 'nuovo',
                    'nuovamente', 'riprov', 'ripeto', 'ancora', 'erneut', 'noch', 'wiederhole',
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
                r"ご確認いただけ|のことですか"),
             needs=('confirm', 'conferm', 'bestätig', 'précis', 'aclar', 'specific', 'especific',
                    'refieres', 'voulez dire', 'meinen', 'intendi', 'dizer', 'riferisci', '确认',
                    '確認', '对吗', '對嗎', '您是指', 'のことですか')),
    TextRule("(es/pt/fr/it/de/ja/zh) cannot confirm / tell", "decline",
             _r(r"\bno\s+puedo\s+(?:confirmar|decir|dar|indicar|informar|determinar|asegurar)|"
                r"\bnão\s+(?:consigo|posso)\s+(?:confirmar|dizer|dar|informar|determinar|indicar)|"
                r"\bje\s+(?:ne\s+peux\s+pas|préfère\s+ne\s+pas)\s+(?:vous\s+)?(?:confirmer|dire|"
                r"donner|indiquer|déterminer)|\bnon\s+(?:posso|riesco\s+a)\s+(?:confermare|dire|"
                r"dare|indicare|determinare)|\bkann\s+ich\s+(?:\w+\s+){0,4}nicht\s+(?:anzeigen|"
                r"bestätigen|sagen|angeben|bestimmen|nennen)|无法(?:告诉|确定|确认|提供|回答)|"
                r"無法(?:告訴|確定|確認|提供|回答)|(?:お答え|お伝え|確認|判断)できません"),
             needs=('puedo', 'consigo', 'posso', 'peux', 'préfère', 'riesco', 'kann', '无法',
                    '無法', 'できません')),
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
    # a capability limit ("I can't provide forecasts beyond 10 days") is not declining this one
    _r(r"\b(?:can't|cannot|can\s+not|unable\s+to)\s+(?:provide|give|show)\s+[^.?!]{0,30}"
       r"\b(?:beyond|further\s+than|older\s+than|more\s+than)\s+\d"),
)
_NEGATION_BEFORE = re.compile(r"\b(?:no|not|without|never|free|sin|sans|senza|sem|ohne|keine?n?|"
                              r"aucune?|ningún|ninguna|nessun[oa]?|nenhum[a]?)\b"
                              r"(?:\W+\w+){0,3}\W*$|(?:没有|沒有|无|無|なし)\W{0,2}$",
                              re.IGNORECASE)
_IF_BEFORE = re.compile(r"\b(?:if|si|wenn|falls)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<!\b[A-Z][a-z]\.)(?<!\bMrs\.)(?<=[.!?])\s+|(?<=[。！？])|\n+")
"""A sentence ends at . ! ? (not after "Dr.", "Mr.", "Mrs.", "St."), at 。！？ and at a newline."""


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


_ALL_NEEDS: frozenset[str] = frozenset(w for r in TEXT_RULES for w in r.needs)


def text_signals(text: str | None, *, gate: bool = True) -> set[Signal]:
    """The signals the text rules find in `text` (empty for none). `gate=False` skips the
    `needs` gate (the same result, slower: for tests)."""
    out: set[Signal] = set()
    for sentence in _sentences(text or ""):
        if any(p.search(sentence) for p in _EXCLUDE):
            continue
        low = sentence.lower()
        present = {w for w in _ALL_NEEDS if w in low}
        for rule in TEXT_RULES:
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
    return out


def classify_text(text: str | None, where: Where, call: CallRelation = None) -> Kind | None:
    """The kind of noticing one output's text shows (None: none), given where it sits:
    beside a call to the same tool as the reference step or to another tool, or a text
    with no call (`final` / `text_turn`)."""
    s = text_signals(text)
    if where == "beside_call":
        if call == "same_tool" and ("retry" in s or ("problem" in s and "continue" not in s)):
            return "requery"
        if call == "other_tool" and "problem" in s and ({"check", "retry"} & s):
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
