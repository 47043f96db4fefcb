"""Index: paper lists in, a searchable store out (sources → papers → chunks → store).

The first stage: it imports only the shared helpers, and its modules keep that flow order among
themselves (pinned by ``tests/unit/test_import_direction.py``).
"""
