//! The streaming core: [`Normalizer`] takes a raw stream one line at a time and hands out the
//! [`Update`]s each line causes — the same parts, events and diagnostics as the batch path
//! ([`crate::normalize`], which is a loop over it), as they happen. [`DocumentBuilder`] folds
//! updates back into the batch path's document.
//!
//! ## What is kept, for a session of any length
//!
//! No line is kept once the dialect is known, and no event or diagnostic is kept once it was
//! handed out. What a normalizer holds is:
//!
//! - while the dialect is not known yet (no dialect given, and no line has named it: every line
//!   so far was blank, foreign or accepted by several dialects): the non-blank lines read so
//!   far, at most the 64-line sniff window — or, while the stream can still be one JSON document
//!   (`opencode export`), the document read so far;
//! - the parts, one per tool call (the latest snapshot of each: [`Normalizer::parts`]), and the
//!   dialect's per-part bookkeeping (ids, owners, results waiting for their call, output streamed
//!   ahead of an item's completion);
//! - a count per kind of diagnostic (at most 64 kinds), for the summaries at the end;
//! - `opencode export` only: its document, which is read at the end of the stream.

use crate::dialects::{HeldLine, NormalizeError, Sniffer, entry};
use crate::model::{Diagnostic, NormalizedDocument, NormalizedToolPart, PartEvent, SCHEMA_VERSION};
use crate::providers::store::Change;
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore};
use crate::stream::{Dialect, Direction, Input, Provider, RawLine, trim_line};

/// Normalize one raw stream: the batch path, a loop over the streaming [`Normalizer`] that keeps
/// every event. Bad lines become diagnostics; only an undetectable dialect is an error.
///
/// ```
/// use toolnorm::{Input, NormalizeOptions, ToolState, normalize};
///
/// let raw = br#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}"#;
/// let doc = normalize(&Input::from_bytes(raw), NormalizeOptions::default())?;
/// assert_eq!((doc.provider.as_str(), doc.dialect.as_str()), ("codex", "exec"));
/// assert_eq!(doc.parts[0].state, ToolState::Complete);
/// assert_eq!(doc.events.len(), 1);
/// # Ok::<(), toolnorm::dialects::NormalizeError>(())
/// ```
pub fn normalize(
    input: &Input<'_>,
    opts: NormalizeOptions<'_>,
) -> Result<NormalizedDocument, NormalizeError> {
    let mut n = Normalizer::collecting(opts)?;
    for line in &input.lines {
        n.push(line)?;
    }
    n.finish_document()
}

/// What one raw line (or the end of the stream) did. Updates come in the order things happened;
/// folded in that order (see [`DocumentBuilder`]) they give the batch path's document.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Update {
    /// The stream's dialect is known (given in the options, or detected from the first lines).
    /// Always the first update.
    Dialect(Dialect),
    /// A part was created or changed. `event` is the lifecycle event the batch document records
    /// for it (the raw line that caused it, and the state it left); `part` is the part as it is
    /// after that line. `created` is true for the part's first update.
    Part {
        event: PartEvent,
        part: NormalizedToolPart,
        created: bool,
    },
    /// A part changed without an event of its own: a later line showed how it should read (an
    /// OpenCode stream turns out to mix sessions, so every part names its session). Replaces the
    /// part; the document gets no event.
    Revised(NormalizedToolPart),
    /// Something about the stream itself: a line that is not the dialect's JSON, an id that
    /// never found its call, a summary of diagnostics left out (at the end).
    Diagnostic(Diagnostic),
}

impl Update {
    /// The part a `Part` or `Revised` update carries (what a wire emitter takes).
    pub fn part(&self) -> Option<&NormalizedToolPart> {
        match self {
            Update::Part { part, .. } | Update::Revised(part) => Some(part),
            Update::Dialect(_) | Update::Diagnostic(_) => None,
        }
    }
}

/// An update as one JSON object, `type` first — the line `toolnorm normalize --follow --emit
/// parts` prints, and what the JavaScript and Python packages hand out:
/// `{"type":"dialect","provider","dialect"}`, `{"type":"part","created","event","part"}`,
/// `{"type":"revised","part"}`, `{"type":"diagnostic","diagnostic"}`. With the `schema` feature
/// its JSON Schema is `schemars::schema_for!(Update)`, its TypeScript `Update` in `toolnorm schema
/// --ts`.
///
/// ```
/// use toolnorm::{Dialect, Update};
///
/// let line = serde_json::to_string(&Update::Dialect(Dialect::ClaudeStreamJson)).unwrap();
/// assert_eq!(line, r#"{"type":"dialect","provider":"claude","dialect":"stream-json"}"#);
/// ```
impl serde::Serialize for Update {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Update::Dialect(d) => UpdateLine::Dialect {
                provider: d.provider().as_str(),
                dialect: d.as_str(),
            },
            Update::Part {
                event,
                part,
                created,
            } => UpdateLine::Part {
                created: *created,
                event,
                part,
            },
            Update::Revised(part) => UpdateLine::Revised { part },
            Update::Diagnostic(diagnostic) => UpdateLine::Diagnostic { diagnostic },
        }
        .serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Update {
    fn schema_name() -> String {
        "Update".to_owned()
    }

    fn json_schema(generator: &mut schemars::r#gen::SchemaGenerator) -> schemars::schema::Schema {
        UpdateLine::json_schema(generator)
    }
}

/// The TypeScript declaration of an update (`export type Update = …`), for `toolnorm schema --ts`.
///
/// ```
/// let ts = toolnorm::normalizer::typescript_declaration();
/// assert!(ts.starts_with("export type Update = "));
/// assert!(ts.contains(r#"{ "type": "revised", part: NormalizedToolPart, }"#));
/// ```
#[cfg(feature = "schema")]
pub fn typescript_declaration() -> String {
    use ts_rs::TS;
    format!("export {}", UpdateLine::decl(&ts_rs::Config::default()))
}

// The JSON shape of an `Update`: its `Serialize` writes this, its JSON Schema is derived from this
// (the doc comments below are the schema's descriptions).
/// One update of a streaming normalizer, as the line `toolnorm normalize --follow --emit parts`
/// prints it.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", derive(ts_rs::TS), ts(rename = "Update"))]
#[serde(tag = "type", rename_all = "camelCase")]
enum UpdateLine<'a> {
    /// The stream's dialect is known; always the first update.
    Dialect {
        /// `claude`, `codex`, `opencode` or `acp`.
        provider: &'a str,
        /// The dialect's name, as `--dialect` takes it (`stream-json`, `exec`, `events`, ...).
        dialect: &'a str,
    },
    /// A part was created or changed.
    Part {
        /// True for the part's first update.
        created: bool,
        /// The lifecycle event the document records for it: the raw line that caused it and the
        /// state it left.
        event: &'a PartEvent,
        /// The part as that line left it.
        part: &'a NormalizedToolPart,
    },
    /// A part changed without an event of its own (a later line showed how it should read);
    /// it replaces the part of the same id.
    Revised { part: &'a NormalizedToolPart },
    /// Something about the stream itself: a line that could not be normalized, a summary of the
    /// diagnostics left out.
    Diagnostic { diagnostic: &'a Diagnostic },
}

/// The updates one call caused, in order (an iterator over a buffer the normalizer reuses).
#[derive(Debug)]
pub struct Updates<'a>(std::vec::Drain<'a, Update>);

impl Iterator for Updates<'_> {
    type Item = Update;

    fn next(&mut self) -> Option<Update> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for Updates<'_> {}

enum State {
    /// The dialect is not known yet: lines are held until it is.
    Detecting(Sniffer),
    Running {
        dialect: Dialect,
        inner: Box<dyn LineNormalizer>,
    },
    /// Detection failed; every later call says why.
    Failed(NormalizeError),
}

/// A streaming normalizer: one raw stream, fed a line at a time.
///
/// ```
/// use toolnorm::{Normalizer, NormalizeOptions, ToolState, Update};
///
/// let mut n = Normalizer::new(NormalizeOptions::default())?;
/// let started = br#"{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#;
/// let done = br#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}"#;
///
/// // Only Codex's `exec --json` has such a line: the dialect is decided at once.
/// let updates: Vec<Update> = n.push_line(started)?.collect();
/// assert_eq!(updates[0], Update::Dialect(toolnorm::Dialect::CodexExec));
/// assert!(matches!(&updates[1], Update::Part { event, .. } if event.state == ToolState::Running));
/// let updates = n.finish_with(done)?;
/// assert!(matches!(&updates[0], Update::Part { event, .. } if event.state == ToolState::Complete));
/// # Ok::<(), toolnorm::dialects::NormalizeError>(())
/// ```
pub struct Normalizer {
    provider: Option<Provider>,
    cwd: Option<String>,
    state: State,
    store: PartStore,
    /// The number of the last line pushed.
    number: u32,
    /// Collecting (the batch path): the store keeps events and diagnostics, no update is made.
    collecting: bool,
    out: Vec<Update>,
}

impl std::fmt::Debug for Normalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Normalizer")
            .field("dialect", &self.dialect())
            .field("lines", &self.number)
            .field("parts", &self.store.parts().len())
            .finish_non_exhaustive()
    }
}

impl Normalizer {
    /// A normalizer for one stream. With `opts.dialect` the dialect is known from the start
    /// (nothing is held); otherwise it is detected from the stream's first lines, among
    /// `opts.provider`'s dialects when given. `opts.cwd` is the agent's working directory for
    /// streams that do not say it (paths in titles are shown relative to it).
    ///
    /// Fails only when the dialect given belongs to another provider than the one given.
    ///
    /// ```
    /// use toolnorm::{Dialect, Normalizer, NormalizeOptions, Provider};
    ///
    /// let n = Normalizer::new(NormalizeOptions {
    ///     dialect: Some(Dialect::ClaudeStreamJson),
    ///     ..NormalizeOptions::default()
    /// })?;
    /// assert_eq!(n.dialect(), Some(Dialect::ClaudeStreamJson));
    ///
    /// let wrong = Normalizer::new(NormalizeOptions {
    ///     provider: Some(Provider::Codex),
    ///     dialect: Some(Dialect::ClaudeStreamJson),
    ///     ..NormalizeOptions::default()
    /// });
    /// assert!(wrong.is_err());
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn new(opts: NormalizeOptions<'_>) -> Result<Normalizer, NormalizeError> {
        Self::with_store(opts, PartStore::streaming(), false)
    }

    /// The batch path's normalizer: its store keeps every event and diagnostic for
    /// [`finish_document`](Self::finish_document), and it makes no updates.
    pub(crate) fn collecting(opts: NormalizeOptions<'_>) -> Result<Normalizer, NormalizeError> {
        Self::with_store(opts, PartStore::new(), true)
    }

    fn with_store(
        opts: NormalizeOptions<'_>,
        store: PartStore,
        collecting: bool,
    ) -> Result<Normalizer, NormalizeError> {
        let mut n = Normalizer {
            provider: opts.provider,
            cwd: opts.cwd.map(str::to_owned),
            state: State::Detecting(Sniffer::new(opts.provider)),
            store,
            number: 0,
            collecting,
            out: Vec::new(),
        };
        match (opts.dialect, opts.provider) {
            (Some(d), Some(p)) if d.provider() != p => {
                return Err(NormalizeError::Mismatch {
                    dialect: d.as_str(),
                    actual: d.provider(),
                    requested: p,
                });
            }
            (Some(d), _) => n.start(d),
            (None, _) => {}
        }
        Ok(n)
    }

    /// The stream's dialect, once known.
    ///
    /// ```
    /// use toolnorm::{Dialect, Normalizer, NormalizeOptions};
    ///
    /// let mut n = Normalizer::new(NormalizeOptions::default())?;
    /// assert_eq!(n.dialect(), None);
    /// // Not a line of any dialect: held.
    /// n.push_line(br#"{"model":"m"}"#)?;
    /// assert_eq!(n.dialect(), None);
    /// // A line only one dialect accepts: detected without waiting for more.
    /// n.push_line(br#"{"type":"turn.started"}"#)?;
    /// assert_eq!(n.dialect(), Some(Dialect::CodexExec));
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn dialect(&self) -> Option<Dialect> {
        match &self.state {
            State::Running { dialect, .. } => Some(*dialect),
            _ => None,
        }
    }

    /// How many lines were pushed: the number of the last one.
    ///
    /// ```
    /// use toolnorm::{Normalizer, NormalizeOptions};
    ///
    /// let mut n = Normalizer::new(NormalizeOptions::default())?;
    /// n.push_line(b"")?;
    /// n.push_line(br#"{"type":"turn.started"}"#)?;
    /// assert_eq!(n.lines(), 2);
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn lines(&self) -> u32 {
        self.number
    }

    /// Every part so far, in the order they appeared, as they are now.
    ///
    /// ```
    /// use toolnorm::{Dialect, Normalizer, NormalizeOptions};
    ///
    /// let mut n = Normalizer::new(NormalizeOptions {
    ///     dialect: Some(Dialect::CodexExec),
    ///     ..NormalizeOptions::default()
    /// })?;
    /// n.push_line(br#"{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#)?;
    /// assert_eq!(n.parts()[0].title, "Running ls");
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn parts(&self) -> &[NormalizedToolPart] {
        self.store.parts()
    }

    /// Feed the next line of the stream (without its `\n`; a trailing `\r` and a leading BOM are
    /// dropped, as when a whole stream is split). Lines are numbered from 1 in the order they
    /// are pushed, blank ones included. Returns the updates the line caused — none while the
    /// dialect is being detected, then every held line's at once. The dialect is decided by the
    /// first line only one dialect accepts (see [`crate::dialects`]); only blank and foreign
    /// lines, lines several dialects accept and the start of what may be one JSON document
    /// (`opencode export`) are held.
    ///
    /// Fails when the dialect cannot be detected: the sniff window is over and no line looked
    /// like any dialect. Every later call fails the same way.
    ///
    /// ```
    /// use toolnorm::{Dialect, Normalizer, NormalizeOptions, Update};
    ///
    /// let mut n = Normalizer::new(NormalizeOptions {
    ///     dialect: Some(Dialect::ClaudeStreamJson),
    ///     ..NormalizeOptions::default()
    /// })?;
    /// let line = br#"{"type":"assistant","session_id":"s","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
    /// let updates: Vec<Update> = n.push_line(line)?.collect();
    /// assert!(matches!(&updates[1], Update::Part { part, created: true, .. } if part.id == "t1"));
    /// // Not JSON: a diagnostic, and the stream goes on.
    /// let updates: Vec<Update> = n.push_line(b"oops")?.collect();
    /// assert!(matches!(&updates[0], Update::Diagnostic(d) if d.line == 2));
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn push_line(&mut self, line: &[u8]) -> Result<Updates<'_>, NormalizeError> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let number = self.number.saturating_add(1);
        self.push(&RawLine {
            number,
            bytes: trim_line(line),
            direction: Direction::Agent,
            unterminated: false,
            text: None,
        })
    }

    /// Feed a line that already has its number and direction (a recorded fixture's lines, a
    /// proxy recording's client lines). Its bytes are taken as they are. Later
    /// [`push_line`](Self::push_line) calls number on from it.
    ///
    /// ```
    /// use toolnorm::stream::{Direction, RawLine};
    /// use toolnorm::{Dialect, Normalizer, NormalizeOptions, Update};
    ///
    /// let mut n = Normalizer::new(NormalizeOptions {
    ///     dialect: Some(Dialect::CodexExec),
    ///     ..NormalizeOptions::default()
    /// })?;
    /// let line = RawLine {
    ///     number: 7,
    ///     bytes: b"not json",
    ///     direction: Direction::Agent,
    ///     unterminated: true,
    ///     text: None,
    /// };
    /// let updates: Vec<Update> = n.push(&line)?.collect();
    /// assert!(matches!(&updates[1], Update::Diagnostic(d) if d.line == 7));
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn push(&mut self, line: &RawLine<'_>) -> Result<Updates<'_>, NormalizeError> {
        self.number = line.number;
        match &mut self.state {
            State::Failed(e) => return Err(e.clone()),
            State::Running { inner, .. } => inner.line(line, &mut self.store),
            State::Detecting(sniffer) => match sniffer.push(line) {
                None => {}
                Some(Ok(d)) => {
                    let held = sniffer.take_held();
                    self.start(d);
                    self.replay(held);
                }
                Some(Err(e)) => {
                    self.state = State::Failed(e.clone());
                    return Err(e);
                }
            },
        }
        self.collect();
        Ok(Updates(self.out.drain(..)))
    }

    /// The stream has ended: what only its end decides (the dialect, when it was still being
    /// detected; calls that never got their result; a whole document's parts; summaries of
    /// the diagnostics left out).
    ///
    /// ```
    /// use toolnorm::{Normalizer, NormalizeOptions, Update};
    ///
    /// let mut n = Normalizer::new(NormalizeOptions::default())?;
    /// // An ACP notification is also a JSON-RPC method with a `/` (Codex app-server): held.
    /// let update = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;
    /// assert_eq!(n.push_line(update)?.count(), 0);
    /// let updates = n.finish()?;
    /// assert_eq!(updates, [Update::Dialect(toolnorm::Dialect::Acp)]);
    ///
    /// let empty = Normalizer::new(NormalizeOptions::default())?;
    /// assert!(empty.finish().is_err());
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn finish(mut self) -> Result<Vec<Update>, NormalizeError> {
        self.end()?;
        Ok(std::mem::take(&mut self.out))
    }

    /// [`push_line`](Self::push_line) of a last line, then [`finish`](Self::finish): every
    /// update the two gave.
    ///
    /// ```
    /// use toolnorm::{Normalizer, NormalizeOptions};
    ///
    /// let n = Normalizer::new(NormalizeOptions::default())?;
    /// let updates = n.finish_with(br#"{"type":"turn.started"}"#)?;
    /// assert_eq!(updates.len(), 1);
    /// # Ok::<(), toolnorm::dialects::NormalizeError>(())
    /// ```
    pub fn finish_with(mut self, line: &[u8]) -> Result<Vec<Update>, NormalizeError> {
        let mut updates: Vec<Update> = self.push_line(line)?.collect();
        updates.extend(self.finish()?);
        Ok(updates)
    }

    /// The batch path's end: the document of a collecting normalizer.
    pub(crate) fn finish_document(mut self) -> Result<NormalizedDocument, NormalizeError> {
        self.end()?;
        let dialect = self
            .dialect()
            .expect("a finished normalizer knows its dialect");
        Ok(self
            .store
            .finish(dialect.provider().as_str(), dialect.as_str()))
    }

    fn end(&mut self) -> Result<(), NormalizeError> {
        match &mut self.state {
            State::Failed(e) => return Err(e.clone()),
            State::Detecting(sniffer) => {
                let d = sniffer.finish()?;
                let held = sniffer.take_held();
                self.start(d);
                self.replay(held);
            }
            State::Running { .. } => {}
        }
        if let State::Running { inner, .. } = &mut self.state {
            inner.finish(&mut self.store);
        }
        self.collect();
        if !self.collecting {
            let summaries = self.store.summaries();
            self.out
                .extend(summaries.into_iter().map(Update::Diagnostic));
        }
        Ok(())
    }

    /// The dialect is known: make its normalizer.
    fn start(&mut self, dialect: Dialect) {
        let opts = NormalizeOptions {
            provider: self.provider,
            dialect: Some(dialect),
            cwd: self.cwd.as_deref(),
        };
        self.state = State::Running {
            dialect,
            inner: (entry(dialect).new)(&opts),
        };
        if !self.collecting {
            self.out.push(Update::Dialect(dialect));
        }
    }

    /// Hand the lines held during detection to the dialect's normalizer, each line's updates
    /// taken before the next (so each shows the parts as that line left them).
    fn replay(&mut self, held: Vec<HeldLine>) {
        for line in &held {
            if let State::Running { inner, .. } = &mut self.state {
                inner.line(&line.raw(), &mut self.store);
            }
            self.collect();
        }
    }

    /// Turn what the store queued into updates.
    fn collect(&mut self) {
        if self.collecting {
            return;
        }
        let Normalizer { store, out, .. } = self;
        let changes: Vec<Change> = store.take_changes().collect();
        for change in changes {
            out.push(match change {
                Change::Event(event, index, created) => Update::Part {
                    event,
                    part: store.part_at(index).clone(),
                    created,
                },
                Change::Revised(index) => Update::Revised(store.part_at(index).clone()),
                Change::Diagnostic(d) => Update::Diagnostic(d),
            });
        }
    }
}

/// Folds [`Update`]s back into the batch path's [`NormalizedDocument`]: parts in the order they
/// appeared, replaced by each later update of theirs, every event and diagnostic in order.
///
/// ```
/// use toolnorm::{DocumentBuilder, Input, Normalizer, NormalizeOptions, normalize};
///
/// let raw = concat!(
///     r#"{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#, "\n",
///     "not json\n",
///     r#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}"#, "\n",
/// );
/// let mut n = Normalizer::new(NormalizeOptions::default())?;
/// let mut doc = DocumentBuilder::new();
/// for line in raw.lines() {
///     doc.extend(n.push_line(line.as_bytes())?);
/// }
/// doc.extend(n.finish()?);
/// let batch = normalize(&Input::from_bytes(raw.as_bytes()), NormalizeOptions::default())?;
/// assert_eq!(doc.finish(), Some(batch));
/// # Ok::<(), toolnorm::dialects::NormalizeError>(())
/// ```
#[derive(Debug, Default)]
pub struct DocumentBuilder {
    dialect: Option<Dialect>,
    parts: Vec<NormalizedToolPart>,
    index: crate::hash::HashMap<String, usize>,
    events: Vec<PartEvent>,
    diagnostics: Vec<Diagnostic>,
}

impl DocumentBuilder {
    /// An empty document.
    pub fn new() -> Self {
        DocumentBuilder::default()
    }

    /// Fold one update in.
    pub fn apply(&mut self, update: Update) {
        match update {
            Update::Dialect(d) => self.dialect = Some(d),
            Update::Part { event, part, .. } => {
                self.events.push(event);
                self.put(part);
            }
            Update::Revised(part) => self.put(part),
            Update::Diagnostic(d) => self.diagnostics.push(d),
        }
    }

    fn put(&mut self, part: NormalizedToolPart) {
        match self.index.get(&part.id) {
            Some(&i) => self.parts[i] = part,
            None => {
                self.index.insert(part.id.clone(), self.parts.len());
                self.parts.push(part);
            }
        }
    }

    /// The document; `None` when no [`Update::Dialect`] came (the stream was never detected).
    pub fn finish(self) -> Option<NormalizedDocument> {
        let dialect = self.dialect?;
        Some(NormalizedDocument {
            schema_version: SCHEMA_VERSION,
            provider: dialect.provider().as_str().to_owned(),
            dialect: dialect.as_str().to_owned(),
            parts: self.parts,
            events: self.events,
            diagnostics: self.diagnostics,
        })
    }
}

impl Extend<Update> for DocumentBuilder {
    fn extend<I: IntoIterator<Item = Update>>(&mut self, updates: I) {
        for u in updates {
            self.apply(u);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::Input;

    /// Stream `text` a line at a time and fold the updates; also the batch document.
    fn both(text: &str, opts: NormalizeOptions<'_>) -> (Vec<Update>, NormalizedDocument) {
        let mut n = Normalizer::new(opts).unwrap();
        let mut updates = Vec::new();
        for line in text.split_terminator('\n') {
            updates.extend(n.push_line(line.as_bytes()).unwrap());
        }
        updates.extend(n.finish().unwrap());
        let batch = crate::normalize(&Input::from_bytes(text.as_bytes()), opts).unwrap();
        let mut doc = DocumentBuilder::new();
        doc.extend(updates.iter().cloned());
        assert_eq!(doc.finish().as_ref(), Some(&batch));
        (updates, batch)
    }

    fn opencode_part(call: &str, session: &str) -> String {
        format!(
            r#"{{"type":"message.part.updated","properties":{{"part":{{"id":"prt_{call}","sessionID":"{session}","messageID":"msg","type":"tool","callID":"{call}","tool":"bash","state":{{"status":"running","input":{{"command":"ls"}}}}}}}}}}"#
        )
    }

    #[test]
    fn a_normalizer_can_move_to_another_thread() {
        fn send<T: Send>(_: &T) {}
        send(&Normalizer::new(NormalizeOptions::default()).unwrap());
    }

    #[test]
    fn a_second_session_revises_the_parts_before_it() {
        let text = format!(
            "{}\n{}\n{}\n",
            opencode_part("a", "ses_1"),
            opencode_part("b", "ses_1"),
            opencode_part("c", "ses_2"),
        );
        let (updates, batch) = both(&text, NormalizeOptions::default());
        assert_eq!(batch.parts.len(), 3);
        let session = |p: &NormalizedToolPart| p.metadata.as_ref().unwrap().session_id.clone();
        assert_eq!(session(&batch.parts[0]).as_deref(), Some("ses_1"));
        assert_eq!(session(&batch.parts[2]).as_deref(), Some("ses_2"));
        let revised: Vec<&str> = updates
            .iter()
            .filter_map(|u| match u {
                Update::Revised(p) => Some(p.id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(revised, ["a", "b"]);
        // One session only: nothing names it, nothing is revised.
        let one = format!("{}\n{}\n", opencode_part("a", "s"), opencode_part("b", "s"));
        let (updates, batch) = both(&one, NormalizeOptions::default());
        assert!(batch.parts.iter().all(|p| session(p).is_none()));
        assert!(!updates.iter().any(|u| matches!(u, Update::Revised(_))));
    }

    #[test]
    fn an_export_document_is_detected_at_its_end() {
        let text = "{\n  \"info\": {\"directory\": \"/w\"},\n  \"messages\": [\n    {\"info\": {\"id\": \"m\"}, \"parts\": [\n      {\"id\": \"p1\", \"type\": \"tool\", \"callID\": \"c1\", \"tool\": \"read\", \"state\": {\"status\": \"completed\", \"input\": {\"filePath\": \"/w/a.rs\"}, \"output\": \"x\"}}\n    ]}\n  ]\n}\n";
        let mut n = Normalizer::new(NormalizeOptions::default()).unwrap();
        for line in text.lines() {
            assert_eq!(n.push_line(line.as_bytes()).unwrap().len(), 0);
        }
        let (updates, batch) = both(text, NormalizeOptions::default());
        assert_eq!(batch.dialect, "export");
        assert_eq!(updates[0], Update::Dialect(Dialect::OpencodeExport));
        assert_eq!(batch.parts[0].title, "Reading a.rs");
        assert_eq!(batch.events[0].line, 5);
    }

    #[test]
    fn a_line_shaped_like_an_export_then_more_lines_is_voted_on() {
        let export_like = r#"{"info":{},"messages":[],"type":"turn.started"}"#;
        let text = format!("{export_like}\n{}\n", r#"{"type":"turn.started"}"#);
        let (_, batch) = both(&text, NormalizeOptions::default());
        assert_eq!(batch.dialect, "exec");
        let (_, batch) = both(&format!("{export_like}\n"), NormalizeOptions::default());
        assert_eq!(batch.dialect, "export");
    }

    #[test]
    fn detection_holds_at_most_the_window_then_fails_or_decides() {
        let mut n = Normalizer::new(NormalizeOptions::default()).unwrap();
        for i in 1..64 {
            assert!(n.push_line(format!("[{i}]").as_bytes()).is_ok(), "line {i}");
        }
        let err = n.push_line(b"[64]").unwrap_err();
        assert!(matches!(err, NormalizeError::Undetectable(_)), "{err}");
        assert_eq!(n.push_line(b"{}").unwrap_err(), err);

        // Lines two dialects accept (ACP, and Codex app-server's any method with a `/`): seven
        // wait, the eighth agreeing one decides and replays all eight.
        let mut n = Normalizer::new(NormalizeOptions::default()).unwrap();
        let line = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"ls","kind":"execute","status":"pending"}}}"#;
        for _ in 0..7 {
            assert_eq!(n.push_line(line).unwrap().len(), 0);
        }
        let updates: Vec<Update> = n.push_line(line).unwrap().collect();
        assert_eq!(updates[0], Update::Dialect(Dialect::Acp));
        assert_eq!(updates.len(), 2, "{updates:?}");

        let blank = Normalizer::new(NormalizeOptions::default()).unwrap();
        assert_eq!(
            blank.finish_with(b"  ").unwrap_err(),
            NormalizeError::Empty("only blank lines")
        );
    }

    #[test]
    fn diagnostics_left_out_are_summed_up_at_the_end() {
        let mut text = String::new();
        for _ in 0..15 {
            text.push_str("not json\n");
        }
        text.push_str(r#"{"type":"turn.started"}"#);
        let opts = NormalizeOptions {
            dialect: Some(Dialect::CodexExec),
            ..NormalizeOptions::default()
        };
        let (updates, batch) = both(&text, opts);
        assert_eq!(batch.diagnostics.len(), 11);
        let last = updates.last().unwrap();
        assert!(
            matches!(last, Update::Diagnostic(d) if d.message.starts_with("… and 5 more lines")),
            "{last:?}"
        );
    }
}
