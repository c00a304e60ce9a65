//! Codex dialects: the app-server v2 notifications (`app_server`), `codex exec --json`
//! (`exec`), rollout files (`rollout`) and the old `{"id","msg"}` EventMsg stream (`legacy`).
//! Their items parse into the same `wire` types and go through the one `tracker::Tracker` and
//! the `tools` builders; the EventMsg handling that rollouts and the legacy stream share is
//! `event_msg`.

pub(crate) mod app_server;
mod event_msg;
pub(crate) mod exec;
pub(crate) mod legacy;
pub(crate) mod rollout;
mod tools;
mod tracker;
mod wire;

#[cfg(test)]
mod old_releases;
