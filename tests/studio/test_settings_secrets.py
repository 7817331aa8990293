"""The studio's settings file never stores the credentials of a base URL."""

from __future__ import annotations

from pathlib import Path

from studio.app.settings_store import StudioSettings


def test_base_url_credentials_are_not_saved(tmp_path: Path) -> None:
    path = tmp_path / "studio.json"
    settings = StudioSettings(provider="openai", base_url="https://bob:s3cret-pw@llm.example/v1")
    settings.save(path)
    text = path.read_text()
    assert "s3cret-pw" not in text and "bob" not in text
    assert StudioSettings.load(path).base_url == "https://llm.example/v1"
    assert settings.base_url == "https://bob:s3cret-pw@llm.example/v1"  # this session keeps them


def test_credentials_in_an_old_file_are_dropped_on_load(tmp_path: Path) -> None:
    path = tmp_path / "studio.json"
    path.write_text('{"provider": "openai", "base_url": "http://u:pw-123456@localhost:8000/v1"}')
    assert StudioSettings.load(path).base_url == "http://localhost:8000/v1"
