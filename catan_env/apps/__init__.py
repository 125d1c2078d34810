"""The applications: what sits above the agents and the RL wrappers — browser play
(``web``), the server bridges (``bridge``, ``pioneers``, ``jsettlers_bridge``),
``catan-play``, replays (``replays``, ``html_replay``) and the win chart.  Nothing below
imports them (``tests/test_layers.py``)."""
