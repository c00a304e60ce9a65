//! Where a scenario's time goes: with `TOOLNORM_SCENARIO_TRACE=1`, each step of a run (install
//! check, start-up, the server listening, each request to the scripted model, the session's end,
//! the agent's exit) is printed to stderr with the seconds since the command started, so a slow
//! scenario shows which wait it spends its time in.

use std::fmt::Display;
use std::sync::OnceLock;
use std::time::Instant;

/// The variable that turns the trace on.
pub const VAR: &str = "TOOLNORM_SCENARIO_TRACE";

fn start() -> Option<Instant> {
    static START: OnceLock<Option<Instant>> = OnceLock::new();
    *START.get_or_init(|| {
        std::env::var_os(VAR)
            .filter(|v| !v.is_empty() && v != "0")
            .map(|_| Instant::now())
    })
}

/// Print `what` happened in `scope` (a scenario's name), when the trace is on.
pub fn mark(scope: &str, what: impl Display) {
    if let Some(t0) = start() {
        eprintln!("[{:8.3}s] {scope}: {what}", t0.elapsed().as_secs_f64());
    }
}
