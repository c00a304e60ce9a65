//! Report writers: one renderer per format over a finished [`Report`]. Renderers compute nothing.

pub mod html;
pub mod junit;
pub mod markdown;
pub mod model;
#[doc(hidden)]
pub mod sample;

pub use model::*;
