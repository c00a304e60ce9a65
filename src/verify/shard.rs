//! `--shard K/N`: a stable partition of the corpus across CI machines, balanced by fixture size.
//! Pure.

use std::fmt;
use std::str::FromStr;

/// Shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid shard `{s}`: expected K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Assign every fixture (path, size) to a shard (0-based), balancing total size: greedy longest
/// processing time — largest fixtures first, each to the currently lightest shard (lowest index on
/// ties). Ordering by (size desc, path) makes the answer depend only on the set of fixtures, never
/// on the walk order, so every machine computes the same partition.
pub fn assign(fixtures: &[(&str, u64)], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..fixtures.len()).collect();
    order.sort_by(|&a, &b| {
        fixtures[b]
            .1
            .cmp(&fixtures[a].1)
            .then_with(|| fixtures[a].0.cmp(fixtures[b].0))
    });
    let mut load = vec![0u64; count];
    let mut out = vec![0usize; fixtures.len()];
    for i in order {
        let (lightest, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(k, l)| (*l, k))
            .expect("count >= 1");
        // Zero-byte fixtures still count, so empty files spread out too.
        load[lightest] += fixtures[i].1.max(1);
        out[i] = lightest;
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!(
            "2/4".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 4 }
        );
        for bad in ["0/4", "5/4", "1/0", "x", "1/", "/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn balances_by_size() {
        let fx = [("a", 100), ("b", 60), ("c", 50), ("d", 10)];
        let a = assign(&fx, 2);
        assert_eq!(a, vec![0, 1, 1, 0]);
    }

    proptest! {
        #[test]
        fn partition_is_stable_and_total(sizes in proptest::collection::vec(0u64..1000, 0..60), n in 1usize..6) {
            let names: Vec<String> = (0..sizes.len()).map(|i| format!("p/{i:03}")).collect();
            let fx: Vec<(&str, u64)> = names.iter().map(String::as_str).zip(sizes.iter().copied()).collect();
            let a = assign(&fx, n);
            prop_assert!(a.iter().all(|&k| k < n));
            // Walk order does not matter.
            let mut rev = fx.clone();
            rev.reverse();
            let mut b = assign(&rev, n);
            b.reverse();
            prop_assert_eq!(a, b);
        }
    }
}
