"""Stepwise's embedded agent engine: LangGraph-compatible graphs and LangChain-style agents."""
