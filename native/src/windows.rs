//! `word_windows`: where `private_values` cuts a long text into windows of words.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A window of a long text: `(lo, hi, first, count, own_start, own_end)`, offsets in
/// characters. Its words `first` to `first + count - 1` (counted from the window's
/// first word) at `own_start..own_end` (from `lo`) are its own; `text[lo:hi]` adds up
/// to `context_words` words either side.
type Window = (usize, usize, usize, usize, usize, usize);

/// The windows of `window_words` words that `text` is read in, each with up to
/// `context_words` words either side, as `private_values._windows` cuts them.
#[pyfunction]
pub fn word_windows(
    py: Python<'_>,
    text: &str,
    window_words: usize,
    context_words: usize,
) -> PyResult<Vec<Window>> {
    if window_words == 0 {
        return Err(PyValueError::new_err("a window holds at least one word"));
    }
    Ok(py.detach(|| {
        let words = word_spans(text);
        (0..words.len())
            .step_by(window_words)
            .map(|first| {
                let last = (first + window_words).min(words.len());
                let before = first.saturating_sub(context_words);
                let lo = words[before].0;
                let hi = words[(last + context_words).min(words.len()) - 1].1;
                let (own_start, own_end) = (words[first].0 - lo, words[last - 1].1 - lo);
                (lo, hi, first - before, last - first, own_start, own_end)
            })
            .collect()
    }))
}

/// Start and end, in characters, of each run of characters that are not White_Space.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    let mut at = 0;
    for c in text.chars() {
        match (c.is_whitespace(), start) {
            (true, Some(first)) => {
                spans.push((first, at));
                start = None;
            }
            (false, None) => start = Some(at),
            _ => {}
        }
        at += 1;
    }
    if let Some(first) = start {
        spans.push((first, at));
    }
    spans
}
