"""The studio's preferences: theme, model provider, recent files (JSON; never an API key).

Stored in ``$STEPWISE_CONFIG_DIR/studio.json`` (else ``$XDG_CONFIG_HOME/stepwise`` or
``~/.config/stepwise``).  The model provider reaches agents two ways: files with
``build_agent(model=...)`` are built on ``settings_model(...)``; any file can read the
environment of this process, ``STEPWISE_MODEL`` (``openai:<model>``) and ``STEPWISE_BASE_URL``.
The key is read by the OpenAI client from ``OPENAI_API_KEY`` and is never written anywhere;
nor are the credentials of a ``base_url`` (``https://user:password@host``): the file keeps the
URL without them (they last for the session that typed them).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from engine.redaction import strip_url_credentials

__all__ = [
    "MAX_RECENT",
    "StudioSettings",
    "apply_model_env",
    "config_path",
    "settings_model",
    "settings_prices",
]

MAX_RECENT = 8
PROVIDERS = ("scripted", "openai")


def config_path() -> Path:
    env = os.environ.get("STEPWISE_CONFIG_DIR")
    if env:
        return Path(env) / "studio.json"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "stepwise" / "studio.json"


@dataclass
class StudioSettings:
    theme: str = "light"
    provider: str = "scripted"
    """``scripted`` (offline, what the scenario files script) or ``openai`` (compatible API)."""
    base_url: str = ""
    model: str = ""
    recent: list[str] = field(default_factory=list)
    """Recently opened agent specs (``file.py:attr``) and session files, newest first."""
    layout: str = ""
    """The window's geometry and dock layout (Qt's saved state, base64), restored on start."""
    prices: dict[str, Any] = field(default_factory=dict)
    """The user's edits of the model price list: ``{model: {"input", "output", ...}}`` per 1M
    tokens, None for a built-in price removed (``studio.models.pricing``)."""

    @classmethod
    def load(cls, path: Path | None = None) -> StudioSettings:
        path = path or config_path()
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        known = {f.name for f in fields(cls)}
        out = cls(**{k: v for k, v in data.items() if k in known})
        if out.theme not in ("light", "dark"):
            out.theme = "light"
        if out.provider not in PROVIDERS:
            out.provider = "scripted"
        out.recent = [str(r) for r in out.recent if isinstance(r, str)][:MAX_RECENT]
        if not isinstance(out.layout, str):
            out.layout = ""
        if not isinstance(out.prices, dict):
            out.prices = {}
        out.prices = {str(k): v for k, v in out.prices.items() if v is None or isinstance(v, dict)}
        out.base_url = strip_url_credentials(str(out.base_url or ""))
        return out

    def save(self, path: Path | None = None) -> None:
        path = path or config_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            data = asdict(self)
            data["base_url"] = strip_url_credentials(self.base_url)  # never saved
            tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:  # preferences are a convenience: never fail the studio over them
            pass

    def add_recent(self, item: str) -> None:
        self.recent = [item, *(r for r in self.recent if r != item)][:MAX_RECENT]


def apply_model_env(settings: StudioSettings, environ: dict[str, str] | None = None) -> None:
    """Tell agent files which model to use (they read ``STEPWISE_MODEL``/``STEPWISE_BASE_URL``)."""
    env = os.environ if environ is None else environ
    if settings.provider == "openai" and settings.model.strip():
        env["STEPWISE_MODEL"] = f"openai:{settings.model.strip()}"
        if settings.base_url.strip():
            env["STEPWISE_BASE_URL"] = settings.base_url.strip()
        else:
            env.pop("STEPWISE_BASE_URL", None)
    else:
        env.pop("STEPWISE_MODEL", None)
        env.pop("STEPWISE_BASE_URL", None)


def settings_model(settings: StudioSettings) -> Any:
    """The chat model Settings ask for (None: scripted, the agent file's own model)."""
    if settings.provider != "openai" or not settings.model.strip():
        return None
    from engine.models import OpenAIChatModel

    return OpenAIChatModel(settings.model.strip(), base_url=settings.base_url.strip() or None)


def settings_prices(settings: StudioSettings) -> Any:
    """The built-in price list with the user's edits (a ``studio.models.pricing.PriceTable``)."""
    from studio.models.pricing import PriceTable

    return PriceTable.builtin().with_overrides(settings.prices)
