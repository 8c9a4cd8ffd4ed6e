"""The use cases: games, settings, statistics, the daily deal; the tap batcher and the solver pool."""
