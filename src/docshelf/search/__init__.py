"""Ranking: keyword (BM25), semantic (dense), fuzzy and hybrid fusion over any Store."""
