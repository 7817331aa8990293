"""History: time travel, replay, offline re-runs and session files."""
