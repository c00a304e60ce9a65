//! `report.json`: the [`Report`] serialized, pretty, with a trailing newline. `report merge` reads
//! it back.

use std::io::{self, Write};

use super::Report;

pub fn render(report: &Report, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(io::Error::other)?;
    writeln!(out)
}
