//! Report writers: one renderer per format over a finished [`Report`]. Renderers compute nothing.

pub mod model;

pub use model::*;
