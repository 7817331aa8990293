"""The look of the studio: palettes, themes, semantic colours, syntax highlighting."""
