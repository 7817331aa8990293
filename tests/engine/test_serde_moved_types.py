"""A session written before a module move names the old module of a stored type; it still
decodes to the type (``engine.types`` became ``engine.types``)."""

from __future__ import annotations

import json

from engine import serde
from engine.types import TimeoutPolicy


def test_a_type_stored_under_its_old_module_decodes_to_the_type() -> None:
    policy = TimeoutPolicy(run_timeout=4.0)
    text = serde.dumps({"policy": policy})
    assert '"engine.types.TimeoutPolicy"' in text
    old = text.replace('"engine.types.TimeoutPolicy"', '"engine.types.TimeoutPolicy"')
    assert serde.loads(old)["policy"] == policy


def test_an_unknown_type_name_stays_plain_data() -> None:
    text = json.dumps({"__sw__": "dc", "cls": "engine.types.Nothing", "v": {"a": 1}})
    assert serde.loads(text) == {"a": 1}
