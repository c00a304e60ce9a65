//! The client side of proxied sessions: a JSON-lines conversation with an agent over its stdio
//! (`codex app-server`'s JSON-RPC, Claude Code's SDK control protocol), with one deadline for the
//! whole session. What the agent printed is kept, for `--raw` runs.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

/// One JSON-lines conversation with an agent.
pub struct LineChannel {
    who: &'static str,
    lines: mpsc::Receiver<String>,
    stdin: Option<Box<dyn Write + Send>>,
    deadline: Instant,
    /// Every line the agent printed so far (JSON or not).
    pub seen: Vec<String>,
}

impl LineChannel {
    /// Talk to an agent whose output is read from `stdout` and whose input is written to
    /// `stdin`; `who` names the agent in errors.
    pub fn new(
        stdout: impl Read + Send + 'static,
        stdin: impl Write + Send + 'static,
        who: &'static str,
        limit: Duration,
    ) -> Self {
        let (tx, lines) = mpsc::channel::<String>();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        LineChannel {
            who,
            lines,
            stdin: Some(Box::new(stdin)),
            deadline: Instant::now() + limit,
            seen: Vec::new(),
        }
    }

    /// Write one JSON line to the agent.
    pub fn send(&mut self, v: &Value) -> anyhow::Result<()> {
        let who = self.who;
        let stdin = self
            .stdin
            .as_mut()
            .with_context(|| format!("{who}'s input is already closed"))?;
        writeln!(stdin, "{v}").with_context(|| format!("failed to write to {who}"))?;
        stdin
            .flush()
            .with_context(|| format!("failed to write to {who}"))
    }

    /// The next JSON line the agent prints (other lines are kept in `seen` and skipped).
    pub fn next(&mut self, what: &str) -> anyhow::Result<Value> {
        match self.next_before(None, what)? {
            Some(v) => Ok(v),
            None => bail!("timed out waiting for {what}"),
        }
    }

    /// The next JSON line the agent prints before `at` (`None` once `at` has come, the line
    /// then left for a later call); the session's deadline still ends the wait with an error.
    pub fn next_before(
        &mut self,
        at: Option<Instant>,
        what: &str,
    ) -> anyhow::Result<Option<Value>> {
        loop {
            let now = Instant::now();
            let left = self.deadline.saturating_duration_since(now);
            if left.is_zero() {
                bail!("timed out waiting for {what}");
            }
            let wait = match at {
                Some(at) if at <= now => return Ok(None),
                Some(at) => left.min(at - now),
                None => left,
            };
            let line = match self.lines.recv_timeout(wait) {
                Ok(l) => l,
                Err(mpsc::RecvTimeoutError::Timeout) if wait < left => return Ok(None),
                Err(mpsc::RecvTimeoutError::Timeout) => bail!("timed out waiting for {what}"),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("{} closed its output before {what}", self.who)
                }
            };
            self.seen.push(line);
            if let Some(Ok(v)) = self.seen.last().map(|l| serde_json::from_str::<Value>(l)) {
                return Ok(Some(v));
            }
        }
    }

    /// The next JSON-RPC message `pred` accepts, for `what`. A request the agent sends on the way
    /// (a message with an `id` and a `method`) is answered with the replies `answer` gives before
    /// reading on, since the agent waits for them; an error answering one of the client's
    /// requests ends the wait with an error.
    pub fn next_rpc(
        &mut self,
        what: &str,
        pred: &dyn Fn(&Value) -> bool,
        answer: &mut dyn FnMut(&Value) -> Vec<Value>,
    ) -> anyhow::Result<Value> {
        loop {
            let v = self.next(what)?;
            if v.get("id").is_some() && v.get("method").is_some() {
                for reply in answer(&v) {
                    self.send(&reply)?;
                }
                continue;
            }
            if let Some(e) = v.get("error").filter(|_| v.get("id").is_some()) {
                bail!("{} answered {what} with an error: {e}", self.who);
            }
            if pred(&v) {
                return Ok(v);
            }
        }
    }

    /// Close the agent's stdin (the end of the session for both protocols).
    pub fn close(&mut self) {
        self.stdin = None;
    }
}

/// What the user says when declining a question prompt.
pub const DECLINED: &str = "The user declined to answer the questions.";

/// The scripted user answering the agent's question prompts from the scenario's `answers`: one
/// list of labels per question, consumed in order. A prompt is declined when every answer taken
/// for it is an empty list (on purpose), or when the answers have run out (a problem of the run).
#[derive(Debug)]
pub struct ScriptedUser<'a> {
    scripted: &'a [Vec<String>],
    used: usize,
    /// Prompts declined because the answers ran out.
    ran_out: usize,
    /// Prompts declined on purpose (empty answer lists).
    pub declined: usize,
}

impl<'a> ScriptedUser<'a> {
    pub fn new(scripted: &'a [Vec<String>]) -> Self {
        ScriptedUser {
            scripted,
            used: 0,
            ran_out: 0,
            declined: 0,
        }
    }

    /// The answers to a prompt of `asked` questions, or None when the user declines it.
    pub fn answer(&mut self, asked: usize) -> Option<&'a [Vec<String>]> {
        let Some(answers) = self.scripted.get(self.used..self.used + asked) else {
            self.ran_out += 1;
            return None;
        };
        self.used += asked;
        if asked > 0 && answers.iter().all(Vec::is_empty) {
            self.declined += 1;
            return None;
        }
        Some(answers)
    }

    /// What went differently from the script.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.used < self.scripted.len() {
            out.push(format!(
                "the agent asked {} questions, the scenario has {} answers",
                self.used,
                self.scripted.len()
            ));
        }
        if self.ran_out > 0 && !self.scripted.is_empty() {
            out.push(format!(
                "{} question prompt(s) were declined: the scenario's answers ran out",
                self.ran_out
            ));
        }
        out
    }

    /// Whether some prompt was declined (a dismissed question can end the agent's turn early).
    pub fn any_declined(&self) -> bool {
        self.declined + self.ran_out > 0
    }
}

/// Claude Code's answer to the SDK's `can_use_tool` control request: allow the call, and for
/// `AskUserQuestion` fill in the user's answers (question text → chosen labels, comma-joined, as
/// the SDK's own prompt does); a declined prompt denies the call.
pub fn claude_permission(tool: &str, input: &Value, user: &mut ScriptedUser<'_>) -> Value {
    let mut updated = input.clone();
    if tool == "AskUserQuestion" {
        let questions: Vec<&str> = input
            .get("questions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|q| q.get("question").and_then(Value::as_str))
            .collect();
        let Some(answers) = user.answer(questions.len()) else {
            return json!({"behavior": "deny", "message": DECLINED});
        };
        let chosen: Map<String, Value> = questions
            .iter()
            .zip(answers)
            .map(|(q, labels)| ((*q).to_owned(), Value::String(labels.join(", "))))
            .collect();
        if let Some(obj) = updated.as_object_mut() {
            obj.insert("answers".to_owned(), Value::Object(chosen));
        }
    }
    json!({"behavior": "allow", "updatedInput": updated})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn ask_user_question_gets_the_scripted_answers_in_order() {
        let input = json!({"questions": [
            {"question": "Which chart?", "header": "Chart", "options": [{"label": "Bar"}, {"label": "Line"}]},
            {"question": "Which colours?", "header": "Colours", "multiSelect": true, "options": []}
        ]});
        let answers = [labels(&["Bar"]), labels(&["Red", "Blue"])];
        let mut user = ScriptedUser::new(&answers);
        let got = claude_permission("AskUserQuestion", &input, &mut user);
        assert_eq!(got["behavior"], "allow");
        assert_eq!(
            got["updatedInput"]["answers"],
            json!({"Which chart?": "Bar", "Which colours?": "Red, Blue"})
        );
        assert_eq!(got["updatedInput"]["questions"], input["questions"]);
        assert!(user.problems().is_empty());
    }

    #[test]
    fn other_tools_are_allowed_unchanged() {
        let input = json!({"command": "ls"});
        let got = claude_permission("Bash", &input, &mut ScriptedUser::new(&[]));
        assert_eq!(
            got,
            json!({"behavior": "allow", "updatedInput": {"command": "ls"}})
        );
    }

    #[test]
    fn empty_answers_decline_on_purpose_and_running_out_is_a_problem() {
        let q = json!({"questions": [{"question": "Publish now?"}]});
        let answers = [vec![], labels(&["later"])];
        let mut user = ScriptedUser::new(&answers);
        let got = claude_permission("AskUserQuestion", &q, &mut user);
        assert_eq!(got, json!({"behavior": "deny", "message": DECLINED}));
        // The next prompt takes the next answer.
        let got = claude_permission("AskUserQuestion", &q, &mut user);
        assert_eq!(
            got["updatedInput"]["answers"],
            json!({"Publish now?": "later"})
        );
        assert!(user.problems().is_empty());
        // A third prompt finds nothing left: declined, and reported.
        let got = claude_permission("AskUserQuestion", &q, &mut user);
        assert_eq!(got["behavior"], "deny");
        assert_eq!(user.problems().len(), 1);
        assert!(user.any_declined());
    }

    #[test]
    fn unused_answers_are_a_problem() {
        let answers = [labels(&["a"]), labels(&["b"])];
        let mut user = ScriptedUser::new(&answers);
        assert_eq!(user.answer(1), Some(&answers[..1]));
        assert_eq!(
            user.problems(),
            ["the agent asked 1 questions, the scenario has 2 answers"]
        );
        // Without a script, declining is what the scenario means: not a problem.
        let mut none = ScriptedUser::new(&[]);
        assert_eq!(none.answer(1), None);
        assert!(none.problems().is_empty());
    }
}
