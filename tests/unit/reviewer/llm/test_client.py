"""The real ``openai`` client against a loopback OpenAI-compatible server: answers, refusals,
retries with backoff, timeouts, the response cache, and where settings come from."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from reviewer.core.config import LLMSettings
from reviewer.core.errors import ConfigError, LLMError, LLMRejected, LLMTimeout
from reviewer.llm import make_model
from reviewer.llm.cache import CachedModel, ResponseCache, cache_key
from reviewer.llm.client import ChatRequest, OpenAIChatModel
from reviewer.llm.settings import resolve
from tests.e2e.llm.support import FakeOpenAIServer, completion

KEY = "sk-test-secret-0123456789"
REQ = ChatRequest(model="tiny", messages=[{"role": "user", "content": "hello"}],
                  response_format={"type": "json_object"})


def client(url: str, **kw) -> OpenAIChatModel:
    args = {"model": "tiny", "base_url": url, "api_key": KEY, "timeout_s": 5.0, "max_retries": 2, "backoff_s": 0.01}
    return OpenAIChatModel(**{**args, **kw})


def test_a_chat_completion_round_trip() -> None:
    with FakeOpenAIServer(lambda body: (200, completion('{"ok": true}', body["model"], 11, 7))) as srv:
        reply = client(srv.base_url).complete(REQ)
    assert reply.content == '{"ok": true}' and (reply.prompt_tokens, reply.completion_tokens) == (11, 7)
    assert reply.attempts == 1 and reply.finish_reason == "stop"
    sent = srv.exchanges[0]["request"]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"] == {"model": "tiny", "messages": REQ.messages, "response_format": {"type": "json_object"},
                            "temperature": 0.0, "seed": 0}
    assert srv.auth_headers == [f"Bearer {KEY}"]  # sent to the server ...
    assert "authorization" not in sent["headers"]  # ... never recorded


def test_unsupported_response_format_is_a_rejection_not_retried() -> None:
    def refuse(body):
        return 400, {"error": {"message": "response_format json_schema is not supported", "code": 400}}

    with FakeOpenAIServer(refuse) as srv, pytest.raises(LLMRejected) as exc:
        client(srv.base_url).complete(REQ)
    assert exc.value.status == "llm_rejected" and len(srv.exchanges) == 1


def test_server_errors_are_retried_with_backoff() -> None:
    answers = [(503, {"error": {"message": "loading model"}}), (500, {"error": {"message": "oops"}}),
               (200, completion("{}", "tiny"))]
    with FakeOpenAIServer(lambda body: answers.pop(0)) as srv:
        model = client(srv.base_url)
        delays: list[float] = []
        model._sleep = delays.append
        reply = model.complete(REQ)
    assert reply.attempts == 3 and len(srv.exchanges) == 3
    assert delays == [0.01, 0.02]


def test_retries_run_out_into_an_llm_error() -> None:
    with FakeOpenAIServer(lambda body: (500, {"error": {"message": "down"}})) as srv, pytest.raises(LLMError) as exc:
        client(srv.base_url, max_retries=1).complete(REQ)
    assert exc.value.status == "llm_error" and len(srv.exchanges) == 2 and "2 attempt(s)" in str(exc.value)


def test_a_slow_server_times_out_after_the_retries() -> None:
    with FakeOpenAIServer(lambda body: (200, completion("{}", "tiny")), delay_s=1.5) as srv:
        t0 = time.monotonic()
        with pytest.raises(LLMTimeout) as exc:
            client(srv.base_url, timeout_s=0.3, max_retries=1).complete(REQ)
        elapsed = time.monotonic() - t0
    assert exc.value.status == "llm_timeout" and "2 attempt(s)" in str(exc.value)
    assert elapsed < 1.4


def test_bad_credentials_are_not_retried() -> None:
    with FakeOpenAIServer(lambda body: (401, {"error": {"message": "bad key"}})) as srv, pytest.raises(LLMError) as exc:
        client(srv.base_url).complete(REQ)
    assert "AuthenticationError" in str(exc.value) and len(srv.exchanges) == 1


def test_the_cache_answers_the_exact_request_again_and_stores_no_key(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda body: (200, completion('{"n": 1}', "tiny"))) as srv:
        model = CachedModel(client(srv.base_url), ResponseCache(tmp_path / "cache"))
        first, second = model.complete(REQ), model.complete(REQ)
        other = model.complete(REQ.model_copy(update={"temperature": 0.5}))
    assert (first.cached, second.cached, other.cached) == (False, True, False)
    assert second.content == first.content and len(srv.exchanges) == 2
    files = list((tmp_path / "cache").rglob("*.json"))
    assert len(files) == 2 and all(KEY not in f.read_text() and "uthorization" not in f.read_text() for f in files)
    key = cache_key(model.endpoint, REQ)
    assert key == cache_key(model.endpoint, ChatRequest.model_validate(REQ.model_dump()))
    assert key != cache_key("http://elsewhere/v1/", REQ)
    (tmp_path / "cache" / key[:2] / f"{key}.json").write_text("{corrupt")
    assert ResponseCache(tmp_path / "cache").get(key) is None


# -- settings ----------------------------------------------------------------------------------
def test_model_and_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KREVIEW_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    r = resolve(LLMSettings(provider="openai"))
    assert (r.model, r.base_url, r.api_key) == ("env-model", "http://127.0.0.1:9/v1", None)
    assert resolve(LLMSettings(provider="openai", model="flag-model")).model == "flag-model"


def test_config_file_sets_all_three_and_the_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "xdg-config" / "kreview" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[llm]\nmodel = "file-model"\nbase_url = "http://file/v1"\napi_key_env = "MY_KEY"\n'
                   'timeout_s = 9\nstructured = "json_object"\n[llm.prices."file-model"]\n'
                   'input_per_mtok = 1.0\noutput_per_mtok = 2.0\n')
    monkeypatch.setenv("MY_KEY", KEY)
    r = resolve(LLMSettings(provider="openai"))
    assert (r.model, r.base_url, r.api_key.get_secret_value(), r.timeout_s, r.structured) == \
        ("file-model", "http://file/v1", KEY, 9, "json_object")
    assert r.config_file == cfg and "file-model" in r.prices
    assert KEY not in r.model_dump_json() and KEY not in repr(r)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env/v1")
    monkeypatch.setenv("KREVIEW_MODEL", "env-model")
    r = resolve(LLMSettings(provider="openai", timeout_s=3))
    assert (r.model, r.base_url, r.timeout_s) == ("env-model", "http://env/v1", 3)


def test_an_explicit_config_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        resolve(LLMSettings(provider="openai", model="m", config_file=tmp_path / "nope.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("[llm]\nmodle = 'typo'\n")
    with pytest.raises(ConfigError, match="modle"):
        resolve(LLMSettings(provider="openai", model="m", config_file=bad))


def test_no_model_or_no_key_for_the_default_endpoint_are_config_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="needs a model name") as exc:
        resolve(LLMSettings(provider="openai"))
    assert exc.value.status == "bad_config" and exc.value.exit_code == 2
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        resolve(LLMSettings(provider="openai", model="gpt-4o-mini"))


def test_make_model_wraps_the_client_in_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    r = resolve(LLMSettings(provider="openai", model="m", base_url="http://127.0.0.1:9/v1"))
    assert r.cache_dir == tmp_path / "xdg-cache" / "kreview" / "llm"
    model = make_model(r)
    assert isinstance(model, CachedModel) and model.endpoint == "http://127.0.0.1:9/v1/"
    uncached = make_model(resolve(LLMSettings(provider="openai", model="m", base_url="http://x/v1", cache=False)))
    assert isinstance(uncached, OpenAIChatModel)
