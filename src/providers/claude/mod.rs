//! claude dialects.

use super::{Dialect, Input, PartStore};

pub(crate) fn normalize(dialect: Dialect, input: &Input<'_>, store: &mut PartStore) {
    let _ = (dialect, input);
    store.warn(0, "claude normalizer is being built");
}
