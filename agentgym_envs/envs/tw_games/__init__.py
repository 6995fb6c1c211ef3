"""TextWorld: games generated offline by the ``textworld`` package (coin collector, treasure
hunter, cooking), compiled per seed, cached, and played by TextWorld's engine. Named
``tw_games`` so it does not shadow the ``textworld`` package."""
