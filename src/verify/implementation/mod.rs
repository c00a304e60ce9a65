//! The one seam every fixture is normalized through: the built-in normalizer, or an external
//! implementation speaking the protocol ([`crate::protocol`]) on a pool of worker processes
//! ([`process`]). Whatever answers, the rules, the diff against `expected/` and the legacy check
//! that follow are the same code.

pub mod process;
pub mod wire;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use crate::protocol::{HelloReply, Normalize, NormalizeResult};
use crate::report::ImplementationInfo;
use process::Worker;

/// What an answer can come in: parts, or a wire (protocol 2).
const ANSWERS: [&str; 4] = ["parts", "acp", "ai-sdk", "ag-ui"];

/// Who normalizes the fixtures of a verify run.
pub enum Implementation {
    /// toolnorm's own normalizer, called in process.
    BuiltIn,
    /// A command speaking the protocol.
    External(External),
}

impl Implementation {
    /// How reports name it.
    pub fn info(&self) -> ImplementationInfo {
        match self {
            Implementation::BuiltIn => ImplementationInfo::built_in(),
            Implementation::External(e) => ImplementationInfo {
                name: e.name.clone(),
                version: Some(e.hello.version.clone()),
                command: Some(e.command.clone()),
                wires: e.answered_in(),
            },
        }
    }

    /// Say `bye` to every worker (external implementations).
    pub fn finish(&self) {
        if let Implementation::External(e) = self {
            e.finish();
        }
    }
}

/// An external implementation: its command, what it said in `hello`, and idle workers.
pub struct External {
    pub command: String,
    pub name: String,
    pub hello: Box<HelloReply>,
    pub timeout: Duration,
    idle: Mutex<Vec<Worker>>,
    /// What its answers came in so far: a bit per entry of [`ANSWERS`].
    answered: AtomicU8,
}

impl External {
    /// Start one worker to learn the implementation's name and dialects. `Err`: it cannot even
    /// say hello, so there is nothing to judge (toolnorm exits 2).
    pub fn start(
        command: &str,
        name: Option<String>,
        timeout: Duration,
    ) -> Result<External, String> {
        let (worker, hello) = Worker::start(command, timeout)?;
        Ok(External {
            command: command.to_owned(),
            name: name.unwrap_or_else(|| hello.name.clone()),
            hello: Box::new(hello),
            timeout,
            idle: Mutex::new(vec![worker]),
            answered: AtomicU8::new(0),
        })
    }

    /// The wires its answers came in so far (`parts` for answers in parts): parts, acp, ai-sdk,
    /// ag-ui, in that order.
    pub fn answered_in(&self) -> Vec<String> {
        let bits = self.answered.load(Ordering::Relaxed);
        ANSWERS
            .iter()
            .enumerate()
            .filter(|(i, _)| bits & (1 << i) != 0)
            .map(|(_, name)| (*name).to_owned())
            .collect()
    }

    pub fn claims(&self, provider: &str, dialect: &str) -> bool {
        self.hello.claims(provider, dialect)
    }

    /// Normalize one fixture on an idle worker (started when none is idle). A worker that
    /// failed (crash, hang, garbage, out of order) is killed; the next fixture gets a new one.
    pub fn normalize(&self, req: Normalize) -> Result<NormalizeResult, String> {
        let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
        let mut worker = match idle {
            Some(w) => w,
            None => Worker::start(&self.command, self.timeout)
                .map(|(w, _)| w)
                .map_err(|e| format!("restarting the implementation: {e}"))?,
        };
        match worker.normalize(req, self.timeout) {
            Ok(result) => {
                let answer = match &result.error {
                    Some(e) => {
                        let tail = worker.stderr_tail();
                        let mut m = format!("the implementation answered an error: {e}");
                        if !tail.is_empty() {
                            m.push_str(&format!("; stderr: {tail}"));
                        }
                        Err(m)
                    }
                    None => self.check_wire(result),
                };
                if let Ok(mut v) = self.idle.lock() {
                    v.push(worker);
                }
                answer
            }
            Err(reason) => Err(worker.fail(reason)),
        }
    }

    /// An answer in a wire its `hello` did not list is an error; note what the answer came in.
    fn check_wire(&self, result: NormalizeResult) -> Result<NormalizeResult, String> {
        if let Some(w) = result.wire
            && !self.hello.wires.contains(&w)
        {
            return Err(format!(
                "the implementation answered in `{}`, which its hello does not list in `wires`",
                w.as_str()
            ));
        }
        let name = result.wire.map_or("parts", |w| w.as_str());
        if let Some(i) = ANSWERS.iter().position(|a| *a == name) {
            self.answered.fetch_or(1 << i, Ordering::Relaxed);
        }
        Ok(result)
    }

    fn finish(&self) {
        let workers = match self.idle.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(_) => Vec::new(),
        };
        for w in workers {
            w.finish(Duration::from_millis(500));
        }
    }
}
