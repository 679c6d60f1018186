"""The path of a batch of turns, one module a step, in the order they run:

    ``turns/decode``   bytes → a turn, or a reason to dead-letter the message
    ``evaluate``       every rule check of the turn's agent (pure, CPU)
    ``judge/plan``     which judged checks sample the turn, as pending judgements
    ``save``           results, rollups, outbox rows and pending judgements: one
                       transaction, through outages and refusals
    ``batch``          the batch top to bottom: the steps above, dead-letter, commit,
                       then the judgements to the runner

``records`` holds what the pipeline hands the store; ``replay`` feeds the same
pipeline from a JSON Lines file instead of Kafka."""
