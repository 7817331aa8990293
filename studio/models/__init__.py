"""Plain-Python view models of the studio, fed by engine events."""
