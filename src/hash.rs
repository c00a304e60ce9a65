//! The keyed hasher of the crate's maps (the normalizers' parts by id, pending results, calls by
//! request; the rules' indexes): most of their keys are tool-call ids of a few dozen bytes, looked
//! up on every line. std's SipHash costs more than the rest of such a lookup, and the core takes no
//! dependency beyond serde, so this is a small keyed hash of its own: eight bytes at a time, each
//! folded into the state with one 64 × 64 → 128-bit multiply. Its key comes from std's `RandomState` (fresh per map, random
//! per process), so a stream cannot choose ids that collide without knowing it.

use std::hash::{BuildHasher, Hasher};

/// A `HashMap` with the [`Keyed`] hasher.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, Keyed>;
/// A `HashSet` with the [`Keyed`] hasher.
pub(crate) type HashSet<K> = std::collections::HashSet<K, Keyed>;

/// Builds [`Fold`] hashers with one map's random key.
#[derive(Clone, Debug)]
pub(crate) struct Keyed(u64);

impl Default for Keyed {
    fn default() -> Self {
        Keyed(std::collections::hash_map::RandomState::new().hash_one(0x746f_6f6c_6e6f_726d_u64))
    }
}

impl BuildHasher for Keyed {
    type Hasher = Fold;

    fn build_hasher(&self) -> Fold {
        Fold(self.0)
    }
}

/// The state of one hash (see the module's documentation).
pub(crate) struct Fold(u64);

/// One word into the state: the two halves of the product with an odd constant, folded.
fn fold(state: u64, word: u64) -> u64 {
    let m = u128::from(state ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (m as u64) ^ ((m >> 64) as u64)
}

impl Hasher for Fold {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        let mut h = self.0;
        for w in &mut words {
            h = fold(h, u64::from_le_bytes(w.try_into().unwrap_or_default()));
        }
        let rest = words.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        // The length goes in with the last word, so "a\0" and "a" differ.
        self.0 = fold(
            fold(h, u64::from_le_bytes(last)),
            bytes.len() as u64 ^ 0xff51_afd7_ed55_8ccd,
        );
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = fold(self.0, n);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(k: &Keyed, s: &str) -> u64 {
        k.hash_one(s)
    }

    #[test]
    fn equal_keys_hash_equal_and_near_keys_apart() {
        let k = Keyed::default();
        assert_eq!(hash(&k, "toolu_01ABC"), hash(&k, "toolu_01ABC"));
        let ids: Vec<String> = (0..10_000).map(|i| format!("call_{i}")).collect();
        let mut hashes: Vec<u64> = ids.iter().map(|id| hash(&k, id)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), ids.len());
        // Keys that differ only in their length or trailing zero bytes differ.
        assert_ne!(k.hash_one(b"a".as_slice()), k.hash_one(b"a\0".as_slice()));
        assert_ne!(hash(&k, ""), hash(&k, "\0"));
    }

    #[test]
    fn each_map_has_its_own_key() {
        let (a, b) = (Keyed::default(), Keyed::default());
        assert_ne!(hash(&a, "same id"), hash(&b, "same id"));
    }
}
