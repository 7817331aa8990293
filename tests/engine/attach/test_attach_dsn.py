"""``--checkpointer`` with a database password: never on screen, in any error line (a query
string password, a keyword DSN, a short password, the "unknown checkpointer" line)."""

from __future__ import annotations

import io
import textwrap
import uuid
from pathlib import Path

import pytest

pytest.importorskip("langgraph.graph")

from engine.cli import main
from engine.redaction import register_dsn, scrub
from tests.engine.attach.apps import REVIEW_APP
from tests.fixtures.openai_server import unused_port


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def app(tmp_path: Path) -> str:
    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(REVIEW_APP))
    return f"{path}:graph"


def _fails_in_one_clean_line(app: str, checkpointer: str, secret: str) -> str:
    code, out, err = run_cli(
        "run", app, "--input-json", '{"n": 1}', "--no-session", "--checkpointer", checkpointer
    )
    assert code == 2 and out == ""
    assert err.startswith("stepwise: ") and err.count("\n") == 1, err
    assert secret not in err
    return err


def test_a_query_string_password_never_shows(app: str) -> None:
    pytest.importorskip("psycopg")
    pytest.importorskip("langgraph.checkpoint.postgres")
    secret = f"pw{uuid.uuid4().hex}"
    url = f"postgresql://127.0.0.1:{unused_port()}/db?user=u&password={secret}&connect_timeout=5"
    err = _fails_in_one_clean_line(app, url, secret)
    assert "cannot open postgresql://127.0.0.1" in err and "password=[REDACTED]" in err


@pytest.mark.parametrize(
    "dsn",
    [
        "host=db.example.com user=u password={secret} dbname=app",
        "host=db.example.com user=u password='{secret} with spaces' dbname=app",
        "host=db.example.com password = {secret}",
    ],
)
def test_a_keyword_dsn_is_unknown_without_its_password(app: str, dsn: str) -> None:
    secret = f"pw{uuid.uuid4().hex}"
    err = _fails_in_one_clean_line(app, dsn.format(secret=secret), secret)
    assert "unknown checkpointer 'host=db.example.com" in err and "[REDACTED]" in err


def test_a_short_password_is_hidden_by_where_it_stands(app: str) -> None:
    err = _fails_in_one_clean_line(app, "host=h user=u password=abc", "abc")
    assert "password=[REDACTED]" in err


def test_registered_dsn_passwords_are_scrubbed_anywhere() -> None:
    secret = f"pw{uuid.uuid4().hex}"
    register_dsn(f"postgresql://db/app?sslmode=require&password={secret}")
    assert scrub(f"FATAL: password {secret} rejected") == "FATAL: password [REDACTED] rejected"
    quoted = f"host=h password='it''s {secret}'"
    register_dsn(quoted)
    assert secret not in scrub(quoted)
    assert scrub('{"url": "https://ann:hunter2@h/x"}') == '{"url": "https://ann:[REDACTED]@h/x"}'


def test_a_database_user_name_without_a_password_is_no_secret() -> None:
    register_dsn("postgresql://dbadminuser@127.0.0.1:5432/dbadminuser")
    assert scrub("cannot open postgresql://127.0.0.1:1/dbadminuser") == (
        "cannot open postgresql://127.0.0.1:1/dbadminuser"
    )
