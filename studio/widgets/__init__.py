"""Widgets and widget helpers shared by the studio's docks and dialogs."""
