"""The hashing half of turncheck's private_values detector (see src/lib.rs)."""

API: int

class Forms:
    """The candidate forms of one window's text, to be hashed under each salt."""

    def __init__(
        self,
        text: str,
        extra: list[str],
        salts: list[tuple[bytes, list[bytes], list[bytes]]],
        punctuation: str,
        max_words: int,
        folded: tuple[str, list[str]] | None = None,
    ) -> None: ...
    def __len__(self) -> int:
        """Steps ``hits`` walks through: one per salt and (first word, run length) or extra."""
    def hits(self, at: int) -> tuple[list[str], int]:
        """Forms of the steps from ``at`` on with a sought digest, and the step to go on from."""

def word_windows(
    text: str, window_words: int, context_words: int
) -> list[tuple[int, int, int, int, int, int]]:
    """``(lo, hi, first, count, own_start, own_end)`` of each window of a long text."""
