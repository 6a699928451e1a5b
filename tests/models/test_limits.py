"""Rate-limit budgets: the token bucket and adaptive concurrency on a fake clock, and the
whole loop (client budget vs serve-sim's 429s) over HTTP."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from simfakes import TOOLS

from agentprop.core import Message
from agentprop.models import AdaptiveConcurrency, GenerateConfig, Limiter, RateLimits, TokenBucket
from agentprop.models._limits import Reservation
from agentprop.sim._admission import Admission
from agentprop.sim._server import ServerConfig, ServerThread


class FakeClock:
    """Time moves only when someone sleeps (or the test says so)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds
        await asyncio.sleep(0)


def test_token_bucket_paces_to_the_budget():
    clock = FakeClock()
    bucket = TokenBucket(6000, burst_s=1.0, clock=clock)  # 100 tokens/s
    waits = [bucket.reserve(100) for _ in range(5)]
    # the first two fit the burst (1 s worth); each later one waits one more second
    assert waits == pytest.approx([0.0, 0.0, 1.0, 2.0, 3.0])
    clock.t += 10.0  # idle time refills, but never beyond the burst
    assert bucket.reserve(100) == 0.0
    assert bucket.reserve(100) == 0.0
    assert bucket.reserve(100) == pytest.approx(1.0)


def test_token_bucket_settles_reported_usage():
    clock = FakeClock()
    bucket = TokenBucket(6000, burst_s=0.0, clock=clock)
    assert bucket.reserve(100) == 0.0
    bucket.settle(+200)  # the call used 300 tokens, not the 100 reserved
    assert bucket.reserve(100) == pytest.approx(3.0)
    bucket.settle(-100)  # a refused call gives its reservation back
    assert bucket.available_in() == pytest.approx(3.0)


def test_long_run_rate_equals_the_budget():
    clock = FakeClock()
    bucket = TokenBucket(60_000, burst_s=1.0, clock=clock)  # 1,000 tokens/s
    spent = 0.0
    for _ in range(200):
        wait = bucket.reserve(250)
        clock.t += wait
        spent += 250
    assert spent / (clock.t - 1000.0) == pytest.approx(1000.0, rel=0.03)


async def test_adaptive_concurrency_backs_off_then_climbs():
    clock = FakeClock()
    ac = AdaptiveConcurrency(16, cooldown_s=1.0, clock=clock)
    ac.on_rate_limited(None)
    ac.on_rate_limited(None)  # the same burst of 429s: one cut
    assert int(ac.limit) == 8
    clock.t += 1.0
    ac.on_rate_limited(None)
    assert int(ac.limit) == 4
    for _ in range(200):
        ac.on_success()
    assert ac.limit == 16.0  # climbs back, never above the maximum
    for _ in range(50):
        clock.t += 1.0
        ac.on_rate_limited(None)
    assert ac.limit == 1.0  # never below one


async def test_concurrency_limit_and_retry_after_pause():
    clock = FakeClock()
    lim = Limiter(RateLimits(), 2, clock=clock)
    await lim.admit()
    await lim.admit()
    third = asyncio.ensure_future(lim.admit())
    await asyncio.sleep(0.01)
    assert not third.done()  # two in flight: the third waits for a slot
    res = Reservation(0.0, 0)
    await lim.refused(res, retry_after=5.0)
    assert lim.rate_limited == 1 and int(lim.concurrency.limit) == 1
    await lim.done(res, 700, 100)  # frees the second slot, but the pause holds new calls
    await asyncio.wait_for(third, 1.0)
    assert clock.t >= 1005.0 and 5.0 in clock.slept


async def test_simulated_429s_shrink_concurrency():
    """Many workers against a fake server that refuses above 3 concurrent calls: the
    limiter backs off to about 3 and only probes above it now and then (AIMD), so few
    calls are refused, far fewer than without adapting."""
    clock = FakeClock()
    lim = Limiter(RateLimits(), 32, clock=clock)
    in_flight = 0
    refused_late = 0

    async def call(i: int) -> None:
        nonlocal in_flight, refused_late
        while True:
            res = await lim.admit()
            in_flight += 1
            await asyncio.sleep(0)
            over = in_flight > 3
            in_flight -= 1
            if over:
                refused_late += i >= 150
                clock.t += 1.0
                await lim.refused(res, retry_after=None)
                continue
            await lim.done(res, 90, 10)
            return

    for start in range(0, 200, 8):
        await asyncio.gather(*(call(i) for i in range(start, start + 8)))
    assert 0 < lim.rate_limited <= 40  # of 200 calls; without adapting: 5 of every 8 tries
    assert lim.concurrency.limit <= 5
    assert refused_late <= 8


def test_admission_refuses_above_the_cap():
    t = [0.0]
    adm = Admission(tpm=6000, burst_s=1.0, clock=lambda: t[0])  # 100 tokens/s, 100 burst
    assert adm.admit(60) is None
    wait = adm.admit(60)
    assert wait == pytest.approx(0.2)  # 40 left, 60 needed at 100/s
    t[0] += 0.2
    assert adm.admit(60) is None
    adm_r = Admission(rpm=60, burst_s=2.0, clock=lambda: t[0])
    assert adm_r.admit(0) is None and adm_r.admit(0) is None
    assert adm_r.admit(0) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        Admission(tpm=0)


async def test_budgeted_client_is_not_refused_by_a_capped_server(fake_suite, fake_generators):
    """serve-sim capped at a TPM, the client given the same --tpm: (almost) no 429s,
    while a client without the budget is refused."""
    from agentprop.models import get_model

    msgs = [Message(role="user", content=fake_suite.tasks[0].query)]
    cfg = ServerConfig(port=0, tpm=60_000, limit_burst_s=1.0)  # ~110 tokens a call
    with ServerThread(cfg, suite=fake_suite, generators=fake_generators) as srv:
        free = get_model("openai/oracle", base_url=srv.base_url, retry_base_s=0.01,
                         retry_max_s=0.05, max_attempts=8)
        await asyncio.gather(*(free.generate(msgs, TOOLS, GenerateConfig()) for _ in range(24)),
                             return_exceptions=True)
        assert free.rate_limited > 0
        assert httpx.get(srv.root_url + "/stats").json()["rate_limited"] == free.rate_limited

    with ServerThread(cfg, suite=fake_suite, generators=fake_generators) as srv:
        paced = get_model("openai/oracle", base_url=srv.base_url, tpm=60_000,
                          retry_base_s=0.01, retry_max_s=0.05, max_attempts=8)
        outs = await asyncio.gather(*(paced.generate(msgs, TOOLS, GenerateConfig())
                                      for _ in range(24)))
        assert paced.rate_limited == 0
        assert all(o.usage.input_tokens > 0 for o in outs)


def test_aliases_and_default_profile(fake_suite, fake_generators):
    cfg = ServerConfig(port=0, aliases={"gpt-4o-mini": "oracle"}, default_profile="oracle")
    with ServerThread(cfg, suite=fake_suite, generators=fake_generators) as srv:
        for name in ("gpt-4o-mini", "deepseek/deepseek-chat", "oracle"):
            r = httpx.post(srv.base_url + "/chat/completions",
                           json={"model": name, "messages": [{"role": "user", "content": "hi"}]})
            assert r.status_code == 200, r.text
        assert httpx.get(srv.root_url + "/stats").json()["by_model"] == {"oracle": 3}
    with pytest.raises(ValueError, match="no sim profile"):
        ServerThread(ServerConfig(port=0, aliases={"x": "nope"}), suite=fake_suite)


def test_experiment_file_limits_reach_the_model(tmp_path) -> None:
    from agentprop.experiment import load_config
    from agentprop.experiment._execute import _models

    f = tmp_path / "study.yaml"
    f.write_text("name: s\nmodels:\n  - id: openai/gpt-4o-mini\n    base_url: "
                 "http://127.0.0.1:9/v1\n    rpm: 500\n    tpm: 200000\n  - id: sim/oracle\n"
                 "    tpm: 1000\nruns:\n  - name: r\n    models: [openai/gpt-4o-mini]\n")
    cfg = load_config(f)
    models = _models(cfg, None, None, False)
    lim = models["openai/gpt-4o-mini"].limiter
    assert lim.limits == RateLimits(rpm=500, tpm=200000)
    assert lim.tokens is not None and lim.tokens.rate == pytest.approx(200000 / 60)
    f.write_text(f.read_text().replace("tpm: 200000", "tpm: -5"))
    from agentprop.experiment import ConfigError

    with pytest.raises(ConfigError, match="tpm"):
        load_config(f)
