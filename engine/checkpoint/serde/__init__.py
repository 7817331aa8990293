"""LangGraph's ``langgraph.checkpoint.serde`` names, where a program ported by imports looks
for them (``jsonplus.JsonPlusSerializer``, the serializer a saver's ``serde=`` takes)."""
