"""HTML for the Diff dock and the Compare Branches window (Qt rich text: tables, no CSS boxes).

Qt's rich text has no CSS borders on blocks, so a coloured bar is a narrow table cell.
"""

from __future__ import annotations

import html
import json
from typing import Any

from engine.messages import AIMessage, BaseMessage
from engine.serde import to_jsonable
from engine.stop_reason import stop_note
from studio.look.palette import Palette
from studio.models.event_summary import invalid_call_text
from studio.models.state_diff import MessageChange, StateDiff, ValueChange

__all__ = ["chip", "diff_html", "esc", "message_card", "page", "value_text"]

_MAX_TEXT = 700
_MONO = "font-family:'DejaVu Sans Mono','Menlo','Consolas',monospace"


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def chip(text: str, fg: str, bg: str) -> str:
    return f'<span style="color:{fg}; background-color:{bg}; font-weight:600">&nbsp;{esc(text)}&nbsp;</span>'


def value_text(value: Any, limit: int = 300) -> str:
    text = json.dumps(to_jsonable(value), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def page(body: str, c: Palette) -> str:
    return f'<html><body style="color:{c.text}; background-color:{c.panel}; font-size:13px">{body}</body></html>'


def _bar_row(color: str, content: str, bg: str) -> str:
    return (
        f'<table width="100%" cellspacing="0" cellpadding="0" style="margin-top:4px; margin-bottom:4px">'
        f'<tr><td width="4" bgcolor="{color}"></td>'
        f'<td bgcolor="{bg}" style="padding:5px 8px">{content}</td></tr></table>'
    )


def message_card(
    msg: BaseMessage,
    c: Palette,
    *,
    mark: str = "",
    bar: str | None = None,
    bg: str | None = None,
    strike: bool = False,
) -> str:
    """A message as a card: role chip, text, tool calls with their arguments."""
    role = msg.type
    color = c.role(role)
    head = chip(role, c.panel if not c.dark else c.window, color)
    if mark:
        head = f'<b style="color:{bar or color}">{esc(mark)}</b>&nbsp;' + head
    extra = []
    if getattr(msg, "name", None):
        extra.append(str(msg.name))
    if role == "tool":
        status = getattr(msg, "status", "success")
        extra.append("✗ error" if status == "error" else "✓ success")
    if extra:
        head += f'&nbsp;<span style="color:{c.muted}">{esc(" · ".join(extra))}</span>'
    text = msg.text.strip()
    if len(text) > _MAX_TEXT:
        text = text[: _MAX_TEXT - 1] + "…"
    parts = [head]
    if text:
        style = "text-decoration:line-through; " if strike else ""
        parts.append(f'<div style="{style}white-space:pre-wrap; margin-top:3px">{esc(text)}</div>')
    if isinstance(msg, AIMessage):
        for call in msg.tool_calls:
            args = value_text(call.get("args") or {}, 400)
            parts.append(
                f'<div style="{_MONO}; font-size:12px; margin-top:3px">'
                f'<span style="color:{c.violet}">→ {esc(str(call.get("name")))}</span>'
                f'<span style="color:{c.muted}">({esc(args)})</span></div>'
            )
        for bad in msg.invalid_tool_calls:  # arguments that are not JSON: no tool ran
            parts.append(
                f'<div style="{_MONO}; font-size:12px; margin-top:3px; color:{c.danger}">'
                f"→ {esc(invalid_call_text(bad))}</div>"
            )
        note = stop_note(msg)
        if note:  # the reply is not what the model meant to say whole
            parts.append(f'<div style="margin-top:3px; color:{c.danger}">⚠ {esc(note)}</div>')
    return _bar_row(bar or color, "".join(parts), bg or c.tint(bar or color, 0.06))


def _field_rows(fields: tuple[ValueChange, ...], c: Palette) -> str:
    if not fields:
        return ""
    rows = []
    for f in fields:
        before = "" if f.kind == "added" else esc(value_text(f.before, 160))
        after = "" if f.kind == "removed" else esc(value_text(f.after, 160))
        rows.append(
            f'<tr><td style="{_MONO}; color:{c.muted}; padding:2px 8px 2px 0">{esc(f.path or "(value)")}</td>'
            f'<td bgcolor="{c.tint(c.danger, 0.1)}" style="{_MONO}; padding:2px 6px">{before}</td>'
            f'<td style="color:{c.muted}; padding:2px 4px">→</td>'
            f'<td bgcolor="{c.tint(c.ok, 0.12)}" style="{_MONO}; padding:2px 6px">{after}</td></tr>'
        )
    return f'<table cellspacing="2" style="margin-top:4px; font-size:12px">{"".join(rows)}</table>'


def _message_change(ch: MessageChange, c: Palette) -> str:
    if ch.kind == "appended" and ch.after is not None:
        return message_card(ch.after, c, mark=f"+ [{ch.index}]", bar=c.ok, bg=c.tint(c.ok, 0.07))
    if ch.kind == "removed" and ch.before is not None:
        return message_card(
            ch.before,
            c,
            mark=f"− [{ch.index}]",
            bar=c.danger,
            bg=c.tint(c.danger, 0.07),
            strike=True,
        )
    assert ch.after is not None
    card = message_card(ch.after, c, mark=f"~ [{ch.index}]", bar=c.amber, bg=c.tint(c.amber, 0.08))
    return card + _field_rows(ch.fields, c)


def _section(title: str, c: Palette) -> str:
    return f'<p style="margin-top:10px; margin-bottom:2px; color:{c.muted}; font-weight:600">{esc(title.upper())}</p>'


def _status_chip(status: str | None, c: Palette) -> str:
    if status is None:
        return f'<span style="color:{c.muted}">—</span>'
    color = {"completed": c.ok, "in_progress": c.accent, "pending": c.muted}.get(status, c.muted)
    return chip(status.replace("_", " "), color, c.tint(color, 0.16))


def diff_html(diff: StateDiff, c: Palette, *, title: str = "") -> str:
    """The diff as a page: summary, messages, todos, other values, next."""
    out = []
    if title:
        out.append(
            f'<p style="font-size:14px; font-weight:600; margin-bottom:2px">{esc(title)}</p>'
        )
    tone = c.muted if diff.is_empty else c.text
    out.append(f'<p style="color:{tone}; margin-top:0">{esc(diff.summary())}</p>')
    if diff.messages:
        out.append(_section("Messages", c))
        out.extend(_message_change(m, c) for m in diff.messages)
    if diff.todos:
        out.append(_section("Todos", c))
        rows = []
        for t in diff.todos:
            mark = {"added": ("+", c.ok), "removed": ("−", c.danger), "status": ("~", c.amber)}[
                t.kind
            ]
            rows.append(
                f'<tr><td style="color:{mark[1]}; font-weight:700; padding-right:6px">{mark[0]}</td>'
                f'<td style="padding-right:12px">{esc(t.content)}</td>'
                f"<td>{_status_chip(t.before, c)}</td><td style='color:{c.muted}'>&nbsp;→&nbsp;</td>"
                f"<td>{_status_chip(t.after, c)}</td></tr>"
            )
        out.append(f'<table cellspacing="3">{"".join(rows)}</table>')
    if diff.keys:
        out.append(_section("Values", c))
        out.append(_field_rows(diff.keys, c))
        if diff.truncated:
            out.append(f'<p style="color:{c.warn}">… more changes not listed</p>')
    if (
        diff.next_before is not None or diff.next_after is not None
    ) and diff.next_before != diff.next_after:
        out.append(_section("Next", c))
        out.append(
            f'<p style="{_MONO}">{esc(_nodes(diff.next_before))} '
            f'<span style="color:{c.muted}">→</span> {esc(_nodes(diff.next_after))}</p>'
        )
    return "".join(out)


def _nodes(nodes: tuple[str, ...] | None) -> str:
    if nodes is None:
        return "?"
    return ", ".join(nodes) if nodes else "end"
