"""What a process of turncheck runs on, whichever role it plays: log lines (``logs``),
counters (``metrics``), waits between tries (``backoff``), the scheduler inside
``turncheck run`` (``scheduler``), the heap's tuning (``heap``), times a person writes
(``moments``), the name a replica claims work under (``claimant``), how its tasks are
ended (``tasks``), the link to a turn's page (``links``) and the engines it runs on
(``engines``)."""
