"""Print the public corpus's figures: ``python -m tests.corpus.public.report``."""

from __future__ import annotations

from tests.corpus.public.run import outcomes, table


def main() -> None:
    for line in table(outcomes()):
        print(line)


if __name__ == "__main__":
    main()
