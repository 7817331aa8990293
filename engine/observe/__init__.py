"""Observation: the event bus, fault injection, trace policy and LangChain-style callbacks.

This layer knows the events and the ``Gate`` protocol a debugger implements; it never imports the
runtime or the debugger."""
