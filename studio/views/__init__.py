"""Qt widgets of the studio and the pure-Python geometry behind them."""
