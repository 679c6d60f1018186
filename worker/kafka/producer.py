"""The outbox's sender on Kafka: one event to its topic, keyed, acknowledged."""

from __future__ import annotations

from faststream.kafka import KafkaBroker

from turncheck.worker.outbox.publisher import Send


def kafka_sender(broker: KafkaBroker) -> Send:
    async def send(topic: str, key: str, payload: bytes) -> None:
        await broker.publish(
            payload, topic=topic, key=key.encode(), headers={"content-type": "application/json"}
        )

    return send
