"""The Kafka edge, and the only place aiokafka and FastStream are used: the turns'
subscriber (``subscriber``), the erasure requests' subscriber (``erasures``), the
dead-letter producer (``dead_letter``), the events' producer (``producer``), the
probe run before a command (``probe``) and the consumer lag (``lag``)."""
