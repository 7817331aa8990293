"""Model prices and what calls cost (plain Python, no Qt).

``PriceTable.builtin()`` reads ``resources/prices.json`` (list prices per 1M tokens, with the
date they were taken); the user's edits from Settings are laid over it (``with_overrides``).  A
model is found by its exact name or one of its listed aliases, case aside and without a
provider prefix (``openai:gpt-4o``, ``models/gemini-2.5-pro``): never by a similar name, so a
price is never guessed.  ``spend(usage)`` prices a ``UsageSum``: what has no price (an unknown
model, cached tokens without a cached price, a prompt past the size a price holds for, a call
that reported no usage) is counted as unknown, and the text says so (``$0.012 + ?``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from engine.usage import TokenUsage
from studio.models.usage_ledger import ModelKey, UsageSum

__all__ = [
    "PRICE_FIELDS",
    "Price",
    "PriceTable",
    "Spend",
    "money_text",
    "spend_text",
    "spend_tooltip",
    "tokens_text",
]

PRICE_FIELDS = ("input", "output", "cached_input", "cache_write")
"""The per-1M-token prices of an entry (``input`` and ``output`` are required)."""


@dataclass(frozen=True)
class Price:
    """US dollars per 1,000,000 tokens."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    max_input_tokens: int | None = None

    def cost(self, usage: TokenUsage, largest_input: int = 0) -> tuple[float | None, str | None]:
        """(dollars, None), or (None, why the cost is unknown); ``largest_input``: the longest
        prompt of one call among those ``usage`` sums (default: all of it was one call)."""
        longest = largest_input or usage.input
        if self.max_input_tokens is not None and longest > self.max_input_tokens:
            return None, (
                f"a prompt of {longest:,} tokens (priced only up to {self.max_input_tokens:,})"
            )
        if usage.cached_input and self.cached_input is None:
            return None, "cached input tokens have no price"
        if usage.cache_write and self.cache_write is None:
            return None, "cache-write tokens have no price"
        plain = max(0, usage.input - usage.cached_input - usage.cache_write)
        total = (
            plain * self.input
            + usage.cached_input * (self.cached_input or 0.0)
            + usage.cache_write * (self.cache_write or 0.0)
            + usage.output * self.output
        )
        return total / 1_000_000, None

    def to_json(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {"input": self.input, "output": self.output}
        if self.cached_input is not None:
            out["cached_input"] = self.cached_input
        if self.cache_write is not None:
            out["cache_write"] = self.cache_write
        if self.max_input_tokens is not None:
            out["max_input_tokens"] = self.max_input_tokens
        return out


@dataclass(frozen=True)
class Spend:
    """What a ``UsageSum`` cost: ``dollars`` counts what has a price; ``unknown`` says what
    does not (model names and reasons); ``unreported`` answered calls told no tokens at all."""

    tokens: TokenUsage = field(default_factory=TokenUsage)
    dollars: float = 0.0
    priced_calls: int = 0
    calls: int = 0
    unreported: int = 0
    failed: int = 0
    """Calls that failed without an answer: no usage, counted as costing nothing (the
    tooltip lists them)."""
    unknown: tuple[str, ...] = ()

    @property
    def fully_known(self) -> bool:
        return not self.unknown and not self.unreported

    @property
    def any_known(self) -> bool:
        return self.priced_calls > 0 or (self.calls > 0 and self.calls == self.failed)


_PROVIDERS = frozenset(
    {
        "openai",
        "azure_openai",
        "anthropic",
        "google",
        "google_genai",
        "google_vertexai",
        "vertexai",
        "mistral",
        "mistralai",
        "bedrock",
        "bedrock_converse",
        "groq",
        "ollama",
        "together",
        "fireworks",
        "deepseek",
        "xai",
    }
)
"""``init_chat_model``'s provider prefixes (``openai:gpt-4o``); any other ``a:b`` is a name."""


def normalize(name: str) -> str:
    """``openai:GPT-4o`` -> ``gpt-4o``; ``models/gemini-2.5-pro`` -> ``gemini-2.5-pro``."""
    text = name.strip().lower()
    if text.startswith("models/"):
        text = text[len("models/") :]
    head, sep, rest = text.partition(":")
    if sep and rest and head in _PROVIDERS:
        text = rest
    return text


@dataclass
class PriceTable:
    """Prices by model name (see the module docstring)."""

    entries: dict[str, Price] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    """Other names of an entry (normalized) -> its name."""
    overridden: frozenset[str] = frozenset()
    """Entries the user set or removed in Settings."""
    removed: frozenset[str] = frozenset()
    taken: str = ""
    """When the built-in prices were taken (from the resource file)."""

    @classmethod
    def builtin(cls) -> PriceTable:
        text = resources.files("resources").joinpath("prices.json").read_text(encoding="utf-8")
        return cls.from_json(json.loads(text))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PriceTable:
        table = cls(taken=str(data.get("taken") or ""))
        for name, raw in (data.get("models") or {}).items():
            price = parse_price(raw)
            if price is None:
                continue
            key = normalize(str(name))
            table.entries[key] = price
            for alias in raw.get("aliases") or ():
                table.aliases[normalize(str(alias))] = key
        return table

    def with_overrides(self, overrides: Mapping[str, Any] | None) -> PriceTable:
        """This table with the user's edits: ``{name: {"input": .., "output": .., ...}}``; an
        entry whose value is None (or has no input/output price) removes the built-in price."""
        entries = dict(self.entries)
        aliases = dict(self.aliases)
        touched, removed = set(), set()
        for name, raw in (overrides or {}).items():
            key = normalize(str(name))
            if not key:
                continue
            touched.add(key)
            price = parse_price(raw) if raw is not None else None
            if price is None:
                entries.pop(key, None)
                removed.add(key)
                aliases = {a: t for a, t in aliases.items() if t != key}
            else:
                entries[key] = price
        return replace(
            self,
            entries=entries,
            aliases=aliases,
            overridden=frozenset(touched),
            removed=frozenset(removed),
        )

    def price(self, model: str | None) -> Price | None:
        if not model:
            return None
        key = normalize(model)
        found = self.entries.get(key)
        if found is None and key in self.aliases:
            found = self.entries.get(self.aliases[key])
        return found

    def price_of(self, names: ModelKey) -> tuple[str | None, Price | None]:
        """The first of a call's model names that has a price (the one the provider reported,
        then the one asked for)."""
        for name in names:
            found = self.price(name)
            if found is not None:
                return name, found
        return None, None

    def spend(self, usage: UsageSum | None) -> Spend:
        if usage is None:
            return Spend()
        dollars = 0.0
        priced = 0
        unknown: list[str] = []
        tokens = TokenUsage()
        for names, use in usage.by_model.items():
            tokens = tokens + use.tokens
            _name, price = self.price_of(names)
            label = next((n for n in names if n), "a model with no name")
            if price is None:
                unknown.append(f"{label}: no price")
                continue
            cost, why = price.cost(use.tokens, use.largest_input)
            if cost is None:
                unknown.append(f"{label}: {why}")
                continue
            dollars += cost
            priced += use.calls
        return Spend(
            tokens=tokens,
            dollars=dollars,
            priced_calls=priced,
            calls=usage.calls,
            unreported=usage.unreported,
            failed=usage.failed,
            unknown=tuple(dict.fromkeys(unknown)),
        )

    def rows(self) -> list[tuple[str, Price, bool]]:
        """(name, price, edited by the user) of every priced model, by name."""
        return [(n, p, n in self.overridden) for n, p in sorted(self.entries.items())]

    def names(self) -> Iterable[str]:
        return self.entries.keys()


def parse_price(raw: Any) -> Price | None:
    """A ``Price`` from JSON, or None when it has no usable input and output price."""
    if not isinstance(raw, Mapping):
        return None
    values: dict[str, float | None] = {}
    for key in PRICE_FIELDS:
        value = raw.get(key)
        if value is None:
            values[key] = None
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            return None
        values[key] = float(value)
    inp, out = values["input"], values["output"]
    if inp is None or out is None:
        return None
    limit = raw.get("max_input_tokens")
    return Price(
        inp,
        out,
        values["cached_input"],
        values["cache_write"],
        int(limit)
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0
        else None,
    )


# -- text ------------------------------------------------------------------------------------------


def tokens_text(n: int) -> str:
    """``950``, ``1.2k``, ``34k``, ``1.23M``."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1_000_000:.2f}M"


def money_text(dollars: float) -> str:
    """``$0``, ``$0.000085``, ``$0.0034``, ``$0.153``, ``$12.40`` (two significant digits
    below a cent, so a cheap call still shows what it cost)."""
    if dollars <= 0:
        return "$0"
    if dollars < 0.000001:
        return "<$0.000001"
    if dollars < 0.01:
        return f"${dollars:.2g}" if dollars >= 0.0001 else f"${dollars:.6f}".rstrip("0")
    if dollars < 1:
        return f"${dollars:.3f}"
    return f"${dollars:,.2f}"


def cost_text(spend: Spend) -> str:
    """The cost alone: ``$0.012``, ``?`` (nothing priced), ``$0.012 + ?`` (part unknown)."""
    if spend.fully_known:
        return money_text(spend.dollars)
    if not spend.any_known:
        return "?"
    return f"{money_text(spend.dollars)} + ?"


def spend_text(spend: Spend) -> str:
    """``1.2k tok · $0.0034``; ``""`` when no call was made."""
    if not spend.calls:
        return ""
    if not spend.tokens:
        if spend.failed == spend.calls:
            return "failed"
        if spend.unreported + spend.failed == spend.calls:
            return "no usage"
    return f"{tokens_text(spend.tokens.total)} tok · {cost_text(spend)}"


def spend_tooltip(spend: Spend, table: PriceTable) -> str:
    """Every figure behind ``spend_text``, one per line."""
    if not spend.calls:
        return ""
    t = spend.tokens
    calls = f"{spend.calls} model call{'s' if spend.calls != 1 else ''}"
    lines = [
        calls,
        f"input {t.input:,} tokens" + (f" ({t.cached_input:,} cached)" if t.cached_input else ""),
    ]
    if t.cache_write:
        lines.append(f"cache writes {t.cache_write:,} tokens")
    lines.append(
        f"output {t.output:,} tokens" + (f" ({t.reasoning:,} reasoning)" if t.reasoning else "")
    )
    if spend.any_known:
        lines.append(f"cost {money_text(spend.dollars)} (list prices taken {table.taken or '?'})")
    for why in spend.unknown:
        lines.append(f"unknown cost: {why}")
    if spend.unreported:
        lines.append(f"{spend.unreported} call(s) reported no token usage: cost unknown")
    if spend.failed:
        lines.append(f"{spend.failed} call(s) failed without an answer (no usage reported)")
    return "\n".join(lines)


def totals_text(
    table: PriceTable, run: UsageSum | None, thread: UsageSum | None
) -> tuple[str, str]:
    """The status bar's cost field and its tooltip: ``Run $0.012 · Thread $0.034``."""
    run_spend, thread_spend = table.spend(run), table.spend(thread)
    if not thread_spend.calls:
        return "", ""

    def part(spend: Spend) -> str:
        if not spend.calls:
            return "-"
        if not spend.tokens and spend.unreported:
            return "no usage"
        return cost_text(spend)

    text = f"Run {part(run_spend)} · Thread {part(thread_spend)}"
    tip = [
        "This run:",
        spend_tooltip(run_spend, table) or "no model call",
        "",
        "This thread (every run and branch):",
        spend_tooltip(thread_spend, table),
    ]
    return text, "\n".join(tip)


def overrides_from(rows: Iterable[tuple[str, Price | None]], builtin: PriceTable) -> dict[str, Any]:
    """What Settings keeps of an edited price list: the entries that differ from the built-in
    ones (``{name: price json}``), and None for built-in entries the user removed.
    ``rows``: every row of the editor, (name, price); a removed row is simply absent."""
    out: dict[str, Any] = {}
    seen: set[str] = set()
    for name, price in rows:
        key = normalize(name)
        if not key or key in seen:
            continue
        seen.add(key)
        if price is None:
            continue
        if builtin.entries.get(key) != price:
            out[key] = price.to_json()
    for key in builtin.entries:
        if key not in seen:
            out[key] = None
    return out
