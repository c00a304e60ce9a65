//! Live scenarios: real agent CLIs (installed from npm or PyPI at pinned versions) driven offline
//! against a scripted model server and a fixture MCP server, recorded in-process through the recording
//! API ([`crate::corpus::record::Recording`]). [`run`] is the generic runner, [`launch`] what it
//! hands a launcher, [`agents`] holds one launcher per agent CLI.

pub mod agents;
pub mod declared;
pub mod drift;
pub mod driver;
pub mod interrupt;
pub mod launch;
pub mod matrix;
pub mod matrix_render;
pub mod mcp_server;
pub mod model_server;
pub mod npm;
pub mod package;
#[cfg(feature = "https-pages")]
pub mod page_server;
pub mod process;
pub mod pypi;
pub mod run;
pub mod sandbox;
pub mod scorecard;
pub mod spec;
pub mod trace;
mod transcript;
