"""Small widgets shared by the studio's windows and docks."""
