//! The client side of proxied sessions: a JSON-lines conversation with an agent over its stdio
//! (`codex app-server`'s JSON-RPC, Claude Code's SDK control protocol), with one deadline for the
//! whole session. What the agent printed is kept, for `--raw` runs.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

/// One JSON-lines session with a child process.
pub struct LineChannel {
    who: &'static str,
    lines: mpsc::Receiver<String>,
    stdin: Option<ChildStdin>,
    deadline: Instant,
    /// Every line the agent printed so far (JSON or not).
    pub seen: Vec<String>,
}

impl LineChannel {
    /// Take the child's stdin and stdout; `who` names the agent in errors.
    pub fn open(child: &mut Child, who: &'static str, limit: Duration) -> anyhow::Result<Self> {
        let stdout = child.stdout.take().context("no stdout")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let (tx, lines) = mpsc::channel::<String>();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(LineChannel {
            who,
            lines,
            stdin: Some(stdin),
            deadline: Instant::now() + limit,
            seen: Vec::new(),
        })
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
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                bail!("timed out waiting for {what}");
            }
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(mpsc::RecvTimeoutError::Timeout) => bail!("timed out waiting for {what}"),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("{} closed its output before {what}", self.who)
                }
            };
            self.seen.push(line);
            if let Some(Ok(v)) = self.seen.last().map(|l| serde_json::from_str::<Value>(l)) {
                return Ok(v);
            }
        }
    }

    /// Close the agent's stdin (the end of the session for both protocols).
    pub fn close(&mut self) {
        self.stdin = None;
    }
}

/// What the user says when every answer to a question prompt is an empty list.
pub const DECLINED: &str = "The user declined to answer the questions.";

/// Claude Code's answer to the SDK's `can_use_tool` control request: allow the call, and for
/// `AskUserQuestion` fill in the user's answers (question text → chosen labels, comma-joined, as
/// the SDK's own prompt does) from `answers`, consumed in order. When every answer taken for the
/// prompt is an empty list the user declines: the call is denied.
pub fn claude_permission(
    tool: &str,
    input: &Value,
    answers: &mut std::slice::Iter<'_, Vec<String>>,
) -> Value {
    let mut updated = input.clone();
    if tool == "AskUserQuestion" {
        let mut chosen = Map::new();
        let questions = input
            .get("questions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut declined = !questions.is_empty();
        for q in questions {
            let Some(text) = q.get("question").and_then(Value::as_str) else {
                continue;
            };
            if let Some(labels) = answers.next() {
                declined &= labels.is_empty();
                chosen.insert(text.to_owned(), Value::String(labels.join(", ")));
            }
        }
        if declined && !chosen.is_empty() {
            return json!({"behavior": "deny", "message": DECLINED});
        }
        if let Some(obj) = updated.as_object_mut() {
            obj.insert("answers".to_owned(), Value::Object(chosen));
        }
    }
    json!({"behavior": "allow", "updatedInput": updated})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ask_user_question_gets_the_scripted_answers_in_order() {
        let input = json!({"questions": [
            {"question": "Which chart?", "header": "Chart", "options": [{"label": "Bar"}, {"label": "Line"}]},
            {"question": "Which colours?", "header": "Colours", "multiSelect": true, "options": []}
        ]});
        let answers = [
            vec!["Bar".to_owned()],
            vec!["Red".to_owned(), "Blue".to_owned()],
        ];
        let got = claude_permission("AskUserQuestion", &input, &mut answers.iter());
        assert_eq!(got["behavior"], "allow");
        assert_eq!(
            got["updatedInput"]["answers"],
            json!({"Which chart?": "Bar", "Which colours?": "Red, Blue"})
        );
        assert_eq!(got["updatedInput"]["questions"], input["questions"]);
    }

    #[test]
    fn other_tools_are_allowed_unchanged_and_answers_run_out_quietly() {
        let input = json!({"command": "ls"});
        let got = claude_permission("Bash", &input, &mut [].iter());
        assert_eq!(
            got,
            json!({"behavior": "allow", "updatedInput": {"command": "ls"}})
        );
        let q = json!({"questions": [{"question": "Q?"}]});
        let got = claude_permission("AskUserQuestion", &q, &mut [].iter());
        assert_eq!(got["updatedInput"]["answers"], json!({}));
    }

    #[test]
    fn empty_answers_decline_the_prompt() {
        let q = json!({"questions": [{"question": "Publish now?"}]});
        let answers = [vec![], vec!["later".to_owned()]];
        let mut it = answers.iter();
        let got = claude_permission("AskUserQuestion", &q, &mut it);
        assert_eq!(got, json!({"behavior": "deny", "message": DECLINED}));
        // The next prompt takes the next answer.
        let got = claude_permission("AskUserQuestion", &q, &mut it);
        assert_eq!(
            got["updatedInput"]["answers"],
            json!({"Publish now?": "later"})
        );
    }
}
