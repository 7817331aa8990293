"""``headline``: the line of an error message one-line views show; a pydantic validation
error's fields and what is wrong with each, not only its count."""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from engine.error_headline import headline


class get_weather(BaseModel):  # named as a tool's arguments are
    city: str
    days: int


def _error(**kw: object) -> str:
    try:
        get_weather.model_validate(kw)
    except ValidationError as exc:
        return str(exc)
    raise AssertionError("valid")


def test_a_validation_error_says_which_fields_and_why() -> None:
    assert headline(_error(town="sf", days=2)) == (
        "1 validation error for get_weather: city: Field required"
    )
    assert headline(_error(town="sf", days="x")) == (
        "2 validation errors for get_weather: city: Field required; days: Input should be a"
        " valid integer, unable to parse string as an integer"
    )


def test_many_fields_are_counted_past_three() -> None:
    fields = "".join(f"f{i}\n  Field required [type=missing]\n" for i in range(5))
    assert headline(f"5 validation errors for T\n{fields}") == (
        "5 validation errors for T: f0: Field required; f1: Field required;"
        " f2: Field required; 2 more"
    )


def test_other_messages_give_their_first_line() -> None:
    assert headline("model timed out\nTraceback: ...") == "model timed out"
    assert headline("  \n") == "" and headline("") == ""
    assert headline("3 validation errors for X") == "3 validation errors for X"  # no fields
