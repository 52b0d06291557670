//! Under loom the slots are a plain boxed slice of loom atomics: words for a one-word
//! table, modelled 16-byte atomics (`src/sync.rs`) for a two-word one.
use crate::sync::{AtomicU128, AtomicU64, Ordering};

pub(super) struct Slots {
    words: Box<[AtomicU64]>,
    pairs: Box<[AtomicU128]>,
}

impl Slots {
    /// The address of the memory in use: tells one table's slots from another's.
    pub(super) fn base(&self) -> usize {
        if self.words.is_empty() {
            self.pairs.as_ptr() as usize
        } else {
            self.words.as_ptr() as usize
        }
    }

    pub(super) fn zeroed(len: usize, wide: bool) -> Result<Slots, super::TableError> {
        let (words, pairs) = if wide { (0, len / 2) } else { (len, 0) };
        Ok(Slots {
            words: (0..words).map(|_| AtomicU64::new(0)).collect(),
            pairs: (0..pairs).map(|_| AtomicU128::new(0)).collect(),
        })
    }
    pub(super) fn len(&self) -> usize {
        self.words.len() + 2 * self.pairs.len()
    }
    pub(super) fn get(&self, i: usize) -> &AtomicU64 {
        &self.words[i]
    }
    /// # Safety
    ///
    /// None here (checked): the contract of the real storage's.
    pub(super) unsafe fn get_unchecked(&self, i: usize) -> &AtomicU64 {
        &self.words[i]
    }
    pub(super) fn get_pair(&self, i: usize) -> &AtomicU128 {
        &self.pairs[i]
    }
    /// # Safety
    ///
    /// None here (checked): the contract of the real storage's.
    pub(super) unsafe fn get_pair_unchecked(&self, i: usize) -> &AtomicU128 {
        &self.pairs[i]
    }
    pub(super) fn prefetch(&self, _i: usize) {}
    pub(super) fn clear(&self) {
        for s in self.words.iter() {
            s.store(0, Ordering::Relaxed);
        }
        for s in self.pairs.iter() {
            s.store(0, Ordering::Relaxed);
        }
    }
}
