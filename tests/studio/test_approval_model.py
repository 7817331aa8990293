"""The approval request as a plain object: decisions, validation, outcomes (no windows)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.tools import tool
from engine.types import Command
from studio.dialogs.approval_model import (
    ApprovalError,
    ApprovalRequest,
    args_check_for,
    is_hitl_request,
)
from studio.dialogs.json_check import check_json_schema, parse_json_object
from studio.dialogs.resume_model import PauseRequest, ValueRequest


@tool
def delete_file(path: str, recursive: bool = False) -> str:
    """Delete a file.

    Args:
        path: the file's path
        recursive: delete a directory's content too
    """
    return path


def payload(*names_allowed: tuple[str, list[str]]) -> dict[str, Any]:
    return {
        "action_requests": [
            {"name": n, "args": {"path": f"/tmp/{n}"}, "description": f"run {n}?"}
            for n, _ in names_allowed
        ],
        "review_configs": [
            {"action_name": n, "allowed_decisions": allowed} for n, allowed in names_allowed
        ],
    }


def test_recognises_hitl_payloads() -> None:
    assert is_hitl_request(payload(("a", ["approve"])))
    assert not is_hitl_request({"question": "continue?"})
    assert not is_hitl_request("yes")
    with pytest.raises(ApprovalError, match="Not a human-in-the-loop request"):
        ApprovalRequest({"action_requests": []})


def test_only_allowed_decisions_and_exact_resume_command() -> None:
    request = ApprovalRequest(
        payload(("send_email", ["approve", "reject"]), ("delete_file", ["approve", "edit"])),
        tools={"delete_file": delete_file},
    )
    email, delete = request.actions
    assert email.allowed == ("approve", "reject")
    with pytest.raises(ApprovalError, match="'edit' is not allowed for send_email"):
        email.edit({"to": "x"})
    with pytest.raises(ApprovalError, match="'respond' is not allowed"):
        delete.respond("no")
    email.reject("  wrong recipient ")
    with pytest.raises(ApprovalError, match=r"undecided: 2\. delete_file"):
        request.submit()
    delete.edit('{"path": "/tmp/other"}')
    command = request.submit()
    assert isinstance(command, Command)
    assert command.resume == {
        "decisions": [
            {"type": "reject", "message": "wrong recipient"},
            {
                "type": "edit",
                "edited_action": {"name": "delete_file", "args": {"path": "/tmp/other"}},
            },
        ]
    }
    assert request.state == "answered"
    with pytest.raises(ApprovalError, match="already answered"):
        request.submit()


def test_reject_without_reason_has_no_message_and_respond_needs_one() -> None:
    request = ApprovalRequest(payload(("a", ["reject", "respond"]), ("b", ["respond"])))
    a, b = request.actions
    a.reject("   ")
    assert a.decision == {"type": "reject"}
    with pytest.raises(ApprovalError, match="needs a message"):
        b.respond("  ")
    b.respond("Already done by hand.")
    assert request.decisions()[1] == {"type": "respond", "message": "Already done by hand."}


def test_edit_is_checked_against_the_tool_schema() -> None:
    request = ApprovalRequest(
        payload(("delete_file", ["edit"])), tools={"delete_file": delete_file}
    )
    review = request.actions[0]
    assert review.problems("{nope") == [
        "Not valid JSON: Expecting property name enclosed in double quotes (line 1, column 2)"
    ]
    assert review.problems("[1]") == ["The arguments must be a JSON object, not array"]
    assert review.problems("{}") == ["path: required"]
    assert review.problems('{"path": 3}') == ["path: expected string, got integer"]
    assert review.problems('{"path": "x", "force": true}') == [
        "force: unknown argument (expected: path, recursive)"
    ]
    assert review.problems('{"path": "x", "recursive": "yes"}') == [
        "recursive: expected boolean, got string"
    ]
    with pytest.raises(ApprovalError, match="path: required"):
        review.edit({})
    assert review.decision is None
    review.edit({"path": "x", "recursive": True})
    assert review.decision == {
        "type": "edit",
        "edited_action": {"name": "delete_file", "args": {"path": "x", "recursive": True}},
    }


def test_review_config_schema_wins_and_no_schema_accepts_any_object() -> None:
    value = payload(("a", ["edit"]), ("b", ["edit"]))
    value["review_configs"][0]["args_schema"] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 1}},
        "required": ["n"],
    }
    request = ApprovalRequest(value)
    a, b = request.actions
    assert a.problems({"n": 0}) == ["n: must be at least 1"]
    assert a.problems({"n": 2}) == []
    assert b.problems({"anything": [1, 2]}) == []


def test_args_check_uses_the_tools_own_validation() -> None:
    check = args_check_for(delete_file)
    assert check({"path": "a"}) == []
    assert check({"path": None})[0].startswith("path: expected string")


def test_json_schema_subset() -> None:
    schema = {
        "type": "object",
        "$defs": {"Mode": {"enum": ["fast", "safe"]}},
        "properties": {
            "mode": {"$ref": "#/$defs/Mode"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
    }
    assert check_json_schema({"mode": "fast", "tags": ["a"], "note": None}, schema) == []
    assert check_json_schema({"mode": "slow"}, schema) == ['mode: must be one of "fast", "safe"']
    assert check_json_schema({"tags": ["a", 1, "c"]}, schema) == [
        "tags: allows at most 2 item(s)",
        "tags[1]: expected string, got integer",
    ]
    assert check_json_schema({"note": 5}, schema) == ["note: expected string, got integer"]
    assert parse_json_object('{"a": 1}') == ({"a": 1}, None)


def test_approve_all_only_when_every_request_allows_it() -> None:
    mixed = ApprovalRequest(payload(("a", ["approve"]), ("b", ["reject"])))
    assert not mixed.can_approve_all
    with pytest.raises(ApprovalError, match="not allowed for b"):
        mixed.approve_all()
    both = ApprovalRequest(payload(("a", ["approve"]), ("b", ["approve", "reject"])))
    changed: list[str] = []
    both.changed.connect(lambda review: changed.append(review.name))
    both.approve_all()
    assert changed == ["a", "b"]
    assert both.decisions() == [{"type": "approve"}, {"type": "approve"}]


def test_outcomes_resolve_the_future() -> None:
    async def scenario() -> tuple[Any, Any]:
        answered = ApprovalRequest(payload(("a", ["approve"])))
        later = ApprovalRequest(payload(("a", ["approve"])))
        fired: list[str] = []
        later.cancelled.connect(lambda: fired.append("cancelled"))
        wait_answer = asyncio.ensure_future(answered.wait())
        wait_cancel = asyncio.ensure_future(later.wait())
        await asyncio.sleep(0)
        answered.actions[0].approve()
        answered.submit()
        later.cancel()
        later.cancel()  # idempotent
        assert fired == ["cancelled"]
        return await wait_answer, await wait_cancel

    command, cancelled = asyncio.run(scenario())
    assert command.resume == {"decisions": [{"type": "approve"}]}
    assert cancelled is None


def test_value_and_pause_requests() -> None:
    request = ValueRequest({"question": "Proceed?"}, interrupt_id="i1", node="ask")
    assert request.parse("", as_text=False)[1] is not None
    assert request.parse("yes", as_text=False)[1].startswith("Not valid JSON")
    assert request.parse("yes", as_text=True) == ("yes", None)
    with pytest.raises(ApprovalError):
        request.submit("{")
    assert request.submit('{"ok": true}') == {"ok": True}
    pause = PauseRequest(["tools"], when="before")
    assert pause.title == "Paused before tools"
    with pytest.raises(ApprovalError, match="not available"):
        pause.edit_and_continue()
    pause.continue_()
    assert pause.state == "answered"
