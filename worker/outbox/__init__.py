"""``response.check_failed`` events: what one holds (``events``: ids, names and times,
never text) and how rows of the outbox table reach the broker at least once from any
number of replicas (``publisher``). The table itself is ``store/outbox_table.py``."""
