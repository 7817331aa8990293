"""The ``stepwise`` command (``engine.cli.command``) and its subcommands, one module each."""

from engine.cli.command import DEFAULT_SCENARIO, DEMO_TEXT, build_parser, main

__all__ = ["DEFAULT_SCENARIO", "DEMO_TEXT", "build_parser", "main"]
