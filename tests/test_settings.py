"""Settings: keyword overrides > environment > secrets file > defaults, and bad values are refused
with a typed error naming the variable."""
from __future__ import annotations

import pytest

from swr.core.errors import BadRequest
from swr.core.settings import Settings


def test_precedence_overrides_then_env_then_secrets_then_defaults(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('swr_top_k = 7\nSWR_WINDOW_SIZE = 5\nSWR_MODE = "sparse"\nOPENAI_API_KEY = "sk-from-secrets"\n'
                       '[server]\nSWR_TOP_K = 99\n')  # a table is not a setting
    env = {"SWR_TOP_K": "9", "SWR_LLM_TIMEOUT": "2.5", "SWR_WINDOW_SIZE": ""}  # empty: unset
    s = Settings.from_env(env=env, secrets_path=secrets, mode="dense")
    assert s.top_k == 9  # the environment beats the secrets file
    assert s.window_size == 5  # the secrets file (case-insensitive keys) beats the default...
    assert s.mode == "dense"  # ...and a keyword override beats both
    assert s.llm_timeout_s == 2.5 and s.llm_api_key == "sk-from-secrets"
    assert s.fusion == "dbsf" and s.sparse == "jieba"  # defaults
    assert Settings.from_env(env={}, secrets_path=secrets).mode == "sparse"
    assert Settings.from_env(env={}, secrets_path=tmp_path / "none.toml").top_k == 3
    s = Settings.from_env(env={"SWR_SECRETS": str(secrets)})  # the secrets file's path from the environment
    assert s.top_k == 7
    assert "sk-from-secrets" not in repr(s) and s.public()["llm_api_key"] == "set"


@pytest.mark.parametrize("var, value, word", [("SWR_TOP_K", "three", "whole number"),
                                              ("SWR_LLM_TIMEOUT", "10s", "number"),
                                              ("SWR_EMBED_BATCH", "1.5", "whole number")])
def test_bad_values_are_a_typed_error_naming_the_variable(tmp_path, var, value, word):
    with pytest.raises(BadRequest) as exc:
        Settings.from_env(env={var: value}, secrets_path=tmp_path / "none.toml")
    assert var in exc.value.message and repr(value) in exc.value.message and word in exc.value.message
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(f'{var} = "{value}"\n')
    with pytest.raises(BadRequest):
        Settings.from_env(env={}, secrets_path=secrets)
