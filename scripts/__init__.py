"""The course's scripts (training, corpora, practice problems, notebook execution).

Each runs as ``python scripts/NAME.py``; tests and benchmarks import them as
``from scripts import NAME`` (pytest puts the repository root on ``sys.path``).
"""
