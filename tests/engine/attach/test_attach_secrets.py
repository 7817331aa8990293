"""Attach mode: the credentials of the app's own LangChain models (secret fields, keys not
shaped like ``sk-...``, headers, the ``user:password`` of a base URL and its base64) never reach
the terminal, the session file, replay or an export, even when the server echoes them."""

from __future__ import annotations

import base64
import io
import textwrap
import uuid
from pathlib import Path

import pytest

pytest.importorskip("langgraph.graph")

from engine.cli import main
from tests.fixtures.openai_server import FakeOpenAIServer, Reply

ECHO_APP = """
from typing import Annotated, TypedDict

from langchain_core.language_models.chat_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from pydantic import SecretStr


class EchoModel(BaseChatModel):
    \"\"\"A model whose server quotes the request's credentials in its error, as careless ones do.\"\"\"

    api_key: SecretStr
    base_url: str
    default_headers: dict

    @property
    def _llm_type(self) -> str:
        return "echo"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        import base64
        from urllib.parse import urlsplit

        user = urlsplit(self.base_url).username
        password = urlsplit(self.base_url).password
        basic = base64.b64encode(f"{{user}}:{{password}}".encode()).decode()
        raise RuntimeError(
            f"401 from {{self.base_url}}: Authorization: Bearer {{self.api_key.get_secret_value()}}"
            f" (Basic {{basic}}); headers: {{self.default_headers}}"
        )


def make_model():
    return EchoModel(
        api_key={key!r},
        base_url="https://ann:{password}@llm.example.com/v1",
        default_headers={{"X-Team-Token": {header!r}}},
    )


MODEL = make_model() if {at_import!r} else None


class State(TypedDict):
    messages: Annotated[list, add_messages]


def call(state):
    model = MODEL or make_model()  # built at import, or only when the node runs
    return {{"messages": [model.invoke(state["messages"])]}}


graph = StateGraph(State).add_node("call", call).add_edge(START, "call").add_edge("call", END).compile()
"""


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _secrets() -> tuple[str, str, str]:
    """A key not shaped like ``sk-``, a header token and a URL password, new for each test
    (registered secrets last for the process)."""
    return f"key{uuid.uuid4().hex}", f"hdr{uuid.uuid4().hex}", f"pw{uuid.uuid4().hex[:12]}"


def _everything_said(session: Path, *printed: str) -> str:
    """The terminal output, the session file's bytes, its replay and its exports."""
    said = list(printed)
    said.append(session.read_bytes().decode("utf-8", "replace"))
    for argv in (["replay", str(session)], ["export", str(session), "--format", "jsonl"]):
        code, out, err = run_cli(*argv)
        assert code == 0, err
        said += [out, err]
    return "\n".join(said)


@pytest.mark.parametrize("at_import", [True, False], ids=["model-at-import", "model-in-node"])
def test_a_langchain_models_credentials_are_never_shown_or_saved(
    tmp_path: Path, at_import: bool
) -> None:
    key, header, password = _secrets()
    app = tmp_path / "app.py"
    app.write_text(
        textwrap.dedent(ECHO_APP).format(
            key=key, header=header, password=password, at_import=at_import
        )
    )
    session = tmp_path / "s.stepwise"
    code, out, err = run_cli("run", f"{app}:graph", "--input", "hi", "--session", str(session))
    assert code == 3 and "stepwise: the run failed: RuntimeError: 401 from" in err
    said = _everything_said(session, out, err)
    basic = base64.b64encode(f"ann:{password}".encode()).decode()
    for secret in (key, header, password, basic):
        assert secret not in said
    assert "[REDACTED]" in err and "llm.example.com" in err


def test_chat_openai_credentials_echoed_by_the_server_are_redacted(tmp_path: Path) -> None:
    pytest.importorskip("langchain_openai")
    key, header, password = _secrets()
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(status=400, echo_headers=True, echo_auth=True))
        url = server.base_url.replace("://", f"://ann:{password}@")
        app = tmp_path / "app.py"
        app.write_text(
            textwrap.dedent(f"""
            from langchain.agents import create_agent
            from langchain_openai import ChatOpenAI

            model = ChatOpenAI(
                model="m", api_key={key!r}, base_url={url!r}, max_retries=0,
                default_headers={{"X-Team-Token": {header!r}}},
            )
            agent = create_agent(model, tools=[])
            """)
        )
        session = tmp_path / "s.stepwise"
        code, out, err = run_cli("run", f"{app}:agent", "--input", "hi", "--session", str(session))
        sent = server.requests
    assert code == 3 and "the run failed" in err
    assert sent, "the model never reached the server"
    said = _everything_said(session, out, err)
    basic = base64.b64encode(f"ann:{password}".encode()).decode()
    for secret in (key, header, password, basic):
        assert secret not in said


def test_an_sk_key_in_a_failed_run_line_is_redacted(tmp_path: Path) -> None:
    app = tmp_path / "fails.py"
    secret = f"sk-{uuid.uuid4().hex}"
    app.write_text(
        textwrap.dedent(f"""
        from typing import TypedDict
        from langgraph.graph import StateGraph, START, END

        class State(TypedDict):
            n: int

        def boom(state):
            raise ValueError("the server said: bad key {secret}")

        graph = StateGraph(State).add_node("boom", boom).add_edge(START, "boom").add_edge("boom", END).compile()
        """)
    )
    code, out, err = run_cli("run", f"{app}:graph", "--input-json", '{"n": 1}', "--no-session")
    assert code == 3
    assert (
        err.strip() == "stepwise: the run failed: ValueError: the server said: bad key [REDACTED]"
    )
    assert secret not in out


FACTORY_TAIL = """

def make_graph(config):
    model = make_model()  # made afresh for every run: no heap scan sees it before it is called

    def call(state):
        return {"messages": [model.invoke(state["messages"])]}

    b = StateGraph(State).add_node("call", call).add_edge(START, "call").add_edge("call", END)
    return b.compile()
"""


def test_the_credentials_of_a_model_a_graph_factory_makes_per_run_are_never_saved(
    tmp_path: Path,
) -> None:
    import json

    key, header, password = _secrets()
    app = tmp_path / f"factory_secrets_{uuid.uuid4().hex[:8]}.py"
    source = textwrap.dedent(ECHO_APP).format(
        key=key, header=header, password=password, at_import=False
    )
    app.write_text(source + FACTORY_TAIL)
    (tmp_path / "langgraph.json").write_text(
        json.dumps({"graphs": {"agent": f"./{app.name}:make_graph"}})
    )
    session = tmp_path / "s.stepwise"
    code, out, err = run_cli("run", str(tmp_path), "--input", "hi", "--session", str(session))
    assert code == 3 and "stepwise: the run failed: RuntimeError: 401 from" in err
    said = _everything_said(session, out, err)
    basic = base64.b64encode(f"ann:{password}".encode()).decode()
    for secret in (key, header, password, basic):
        assert secret not in said
