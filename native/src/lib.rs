//! The hashing half of turncheck's `private_values` detector, in Rust.
//!
//! `turncheck.worker.checks.sensitive.private_hashes` is the reference: for the
//! words of a text it finds which candidate forms have one of the salted SHA-256
//! digests of the customer's private values. `Forms` finds the same set of forms,
//! faster: the runs of words are slices of one buffer rather than Python strings,
//! and a form costs one SHA-256 block rather than a dozen Python calls.
//! `word_windows` cuts a long text into the windows `private_values` reads.
//!
//! The caller keeps the turn's time budget: `Forms.hits` does a bounded amount of
//! work per call (at most `STEPS_PER_CALL` steps and `COST_PER_CALL`, well under a
//! millisecond) without the GIL, and says where to go on, so Python checks its budget
//! between calls. Nothing here keeps or logs a form beyond the call.

mod windows;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sha2::{Digest, Sha256};

/// Steps (the forms of a run of words, or an extra form, under one salt) per call at most.
const STEPS_PER_CALL: usize = 4_096;
/// Work per call at most, counted as a block per hash plus the bytes hashed: a few
/// thousand short forms, or fewer long ones. A step is never cut, so a call can run
/// past this by one step: twelve hashes at most (six forms and their case-folded
/// twins), none longer than the window's text.
const COST_PER_CALL: usize = 1 << 18;
const COST_PER_HASH: usize = 64;

type Sha256Digest = [u8; 32];
/// A salt as Python passes it: its UTF-8, the exact digests, the case-folded digests.
type SaltDigests = (Vec<u8>, Vec<Vec<u8>>, Vec<Vec<u8>>);

/// Words joined by single spaces, and where each word starts and ends in that text.
struct Words {
    flat: String,
    bounds: Vec<(usize, usize)>,
}

impl Words {
    /// The words of `text`: its runs of characters that are not Unicode White_Space,
    /// as Python's `regex` finds `\S+`.
    fn new(text: &str) -> Self {
        let mut flat = String::with_capacity(text.len());
        let mut bounds = Vec::new();
        for token in text.split_whitespace() {
            if !bounds.is_empty() {
                flat.push(' ');
            }
            let start = flat.len();
            flat.push_str(token);
            bounds.push((start, flat.len()));
        }
        Words { flat, bounds }
    }

    /// Words `first` to `first + count - 1`, joined by single spaces.
    fn run(&self, first: usize, count: usize) -> &str {
        &self.flat[self.bounds[first].0..self.bounds[first + count - 1].1]
    }
}

/// A salt's hash state after the salt, and the digests (sorted) sought under it.
struct Salt {
    prefix: Sha256,
    exact: Vec<Sha256Digest>,
    folded: Vec<Sha256Digest>,
}

impl Salt {
    fn has(&self, digests: &[Sha256Digest], form: &str) -> bool {
        let mut hash = self.prefix.clone();
        hash.update(form.as_bytes());
        let digest: Sha256Digest = hash.finalize().into();
        digests.binary_search(&digest).is_ok()
    }
}

/// The candidate forms of one window's text, to be hashed under each salt.
///
/// A form is a run of 1 to `max_words` words joined by single spaces, as written;
/// the run stripped of `punctuation` around it; when a word of the run holds an
/// ASCII digit, the stripped run without spaces and hyphens, and when it is digit
/// groups between separators, its groups joined by nothing, a space and a hyphen
/// (`grouped`); and each of `extra`
/// (the pieces Python cut at separators inside words). With `folded` (the text
/// and the extras case-folded by Python), each form's case-folded twin is hashed
/// for the salts' folded digests: case folding maps letters only, never to or
/// from white space, punctuation, hyphens or digits, so the twin of a form is the
/// same recipe applied to the folded text.
#[pyclass(frozen, module = "turncheck_native")]
struct Forms {
    words: Words,
    folded: Option<(Words, Vec<String>)>,
    extra: Vec<String>,
    /// `digits_before[i]`: how many of the words before word `i` hold a digit.
    digits_before: Vec<usize>,
    salts: Vec<Salt>,
    punctuation: Vec<char>,
    max_words: usize,
}

#[pymethods]
impl Forms {
    /// `salts`: `(salt as UTF-8, exact digests, case-folded digests)`; digests are
    /// 32 bytes each. `folded`: the case-folded `text` and `extra`, needed when
    /// any salt has case-folded digests.
    #[new]
    #[pyo3(signature = (text, extra, salts, punctuation, max_words, folded=None))]
    fn new(
        text: &str,
        extra: Vec<String>,
        salts: Vec<SaltDigests>,
        punctuation: &str,
        max_words: usize,
        folded: Option<(&str, Vec<String>)>,
    ) -> PyResult<Self> {
        let words = Words::new(text);
        let salts = salts
            .into_iter()
            .map(|(salt, exact, folded)| {
                Ok(Salt {
                    prefix: Sha256::new_with_prefix(&salt),
                    exact: sorted_digests(exact)?,
                    folded: sorted_digests(folded)?,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let folded = match folded.map(|(text, extras)| (Words::new(text), extras)) {
            Some((twins, extras))
                if twins.bounds.len() == words.bounds.len() && extras.len() == extra.len() =>
            {
                Some((twins, extras))
            }
            Some(_) => return Err(PyValueError::new_err("folded words do not match the words")),
            None if salts.iter().any(|s| !s.folded.is_empty()) => {
                return Err(PyValueError::new_err(
                    "case-folded digests need folded words",
                ));
            }
            None => None,
        };
        let mut digits_before = Vec::with_capacity(words.bounds.len() + 1);
        digits_before.push(0);
        for &(start, end) in &words.bounds {
            let held = words.flat.as_bytes()[start..end]
                .iter()
                .any(u8::is_ascii_digit);
            digits_before.push(digits_before.last().copied().unwrap_or(0) + usize::from(held));
        }
        Ok(Forms {
            words,
            folded,
            extra,
            digits_before,
            salts,
            punctuation: punctuation.chars().collect(),
            max_words: max_words.max(1),
        })
    }

    /// How many steps `hits` walks through: one per salt and slot, a slot being a
    /// (first word, run length) or an extra.
    fn __len__(&self) -> usize {
        (self.run_slots() + self.extra.len()) * self.salts.len()
    }

    /// The forms of the steps from `at` on that have a sought digest, and the step to
    /// go on from (`len(self)` when done). Does a bounded amount of work per call.
    fn hits(&self, py: Python<'_>, at: usize) -> (Vec<String>, usize) {
        py.detach(|| self.hash_from(at))
    }
}

impl Forms {
    fn run_slots(&self) -> usize {
        self.words.bounds.len() * self.max_words
    }

    fn hash_from(&self, at: usize) -> (Vec<String>, usize) {
        let total = self.__len__();
        let mut found = Vec::new();
        let mut cost = 0;
        let mut step = at;
        while step < total && step - at < STEPS_PER_CALL && cost < COST_PER_CALL {
            let salt = &self.salts[step % self.salts.len()];
            cost += self.hash_slot(step / self.salts.len(), salt, &mut found);
            step += 1;
        }
        (found, step.min(total))
    }

    /// Hashes the forms of one slot under `salt` into `found`; the cost of it.
    fn hash_slot(&self, slot: usize, salt: &Salt, found: &mut Vec<String>) -> usize {
        let runs = self.run_slots();
        if slot >= runs {
            let j = slot - runs;
            let twin = self.folded.as_ref().map(|(_, extras)| extras[j].as_str());
            return hash_form(salt, &self.extra[j], twin, found);
        }
        let (first, count) = (slot / self.max_words, slot % self.max_words + 1);
        if first + count > self.words.bounds.len() {
            return 0;
        }
        let joined = self.words.run(first, count);
        let folded_joined = self
            .folded
            .as_ref()
            .map(|(words, _)| words.run(first, count));
        let mut cost = hash_form(salt, joined, folded_joined, found);
        let bare = self.strip(joined);
        let folded_bare = folded_joined.map(|f| self.strip(f));
        if bare.len() != joined.len() {
            cost += hash_form(salt, bare, folded_bare, found);
        }
        if self.digits_before[first + count] > self.digits_before[first] {
            let compact = without_spaces_and_hyphens(bare);
            if compact.len() != bare.len() {
                let folded_compact = folded_bare.map(without_spaces_and_hyphens);
                cost += hash_form(salt, &compact, folded_compact.as_deref(), found);
            }
            // Digit groups fold to themselves: each form is its own twin.
            for form in grouped(bare) {
                if form != joined && form != bare && form != compact {
                    let twin = folded_bare.map(|_| form.as_str());
                    cost += hash_form(salt, &form, twin, found);
                }
            }
        }
        cost
    }

    fn strip<'a>(&self, form: &'a str) -> &'a str {
        form.trim_matches(self.punctuation.as_slice())
    }
}

/// Hashes `form` (and its case-folded `twin`) under `salt` into `found`; the cost of it.
fn hash_form(salt: &Salt, form: &str, twin: Option<&str>, found: &mut Vec<String>) -> usize {
    let mut cost = 0;
    let mut hit = false;
    if !salt.exact.is_empty() {
        cost += COST_PER_HASH + form.len();
        hit |= salt.has(&salt.exact, form);
    }
    if let (false, Some(twin)) = (salt.folded.is_empty(), twin) {
        cost += COST_PER_HASH + twin.len();
        hit |= salt.has(&salt.folded, twin);
    }
    if hit {
        found.push(form.to_owned());
    }
    cost
}

/// A number's digit groups joined by nothing, a space and a hyphen, as Python's
/// `private_forms.grouped`: for `form` an optional `+`, then ASCII digit groups between
/// runs of spaces, dots, slashes and hyphens; none for anything else, or for one group,
/// or for two groups around a lone dot (a decimal point).
fn grouped(form: &str) -> Vec<String> {
    let is_separator = |b: u8| matches!(b, b' ' | b'.' | b'/' | b'-');
    let bytes = form.as_bytes();
    let mut groups: Vec<&str> = Vec::new();
    let mut separators: Vec<&str> = Vec::new();
    let mut at = usize::from(bytes.first() == Some(&b'+'));
    let mut group_start = 0;
    loop {
        let digits_start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        if at == digits_start {
            return Vec::new();
        }
        groups.push(&form[group_start..at]);
        if at == bytes.len() {
            break;
        }
        let separator_start = at;
        while at < bytes.len() && is_separator(bytes[at]) {
            at += 1;
        }
        if at == separator_start || at == bytes.len() {
            return Vec::new();
        }
        separators.push(&form[separator_start..at]);
        group_start = at;
    }
    if separators.is_empty() || separators == ["."] {
        return Vec::new();
    }
    vec![groups.concat(), groups.join(" "), groups.join("-")]
}

fn without_spaces_and_hyphens(form: &str) -> String {
    form.chars().filter(|&c| c != ' ' && c != '-').collect()
}

fn sorted_digests(digests: Vec<Vec<u8>>) -> PyResult<Vec<Sha256Digest>> {
    let mut sorted = digests
        .into_iter()
        .map(|d| {
            Sha256Digest::try_from(d.as_slice())
                .map_err(|_| PyValueError::new_err("a SHA-256 digest is 32 bytes"))
        })
        .collect::<PyResult<Vec<_>>>()?;
    sorted.sort_unstable();
    Ok(sorted)
}

#[pymodule]
mod turncheck_native {
    #[pymodule_export]
    use super::Forms;
    #[pymodule_export]
    use super::windows::word_windows;

    /// What Python may call here; raised with any change to a signature or a result, so
    /// that a stale build is left unused rather than called wrongly.
    #[pymodule_export]
    const API: u32 = 2;
}
