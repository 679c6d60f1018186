"""What is deleted and when: the retention purge (``purge``) and erasure by person with
its ledger (``erasure``). Their statements live in ``store/`` (``expiry``,
``erasures``); these modules decide what goes."""
