//! Live scenarios: real agent CLIs (installed from npm at pinned versions) driven offline against
//! a scripted model server and a fixture MCP server, recorded through `toolnorm record`.

pub mod drift;
pub mod driver;
pub mod mcp_server;
pub mod model_server;
pub mod npm;
pub mod page_server;
pub mod process;
pub mod run;
pub mod spec;
