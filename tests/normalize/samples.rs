//! The repository's corpus as these tests read it: every fixture under `corpus/<provider>/`, loaded
//! with the library (`toolnorm::corpus::load_stream`), normalized the way `toolnorm verify` does it
//! (provider from the folder, dialect from the header, the recorded working directory), and cut
//! into prefixes for the properties over partial streams.

use std::path::{Path, PathBuf};

use toolnorm::corpus::{LoadedStream, list_fixtures, load_stream};
use toolnorm::stream::RawLine;
use toolnorm::{Dialect, Input, NormalizeOptions, NormalizedDocument, Provider, normalize};

/// One fixture of the corpus, loaded.
pub struct Sample {
    /// `provider/name`, as reports and `expectations.toml` name it.
    pub name: String,
    pub provider: Provider,
    /// The dialect its header names.
    pub dialect: Dialect,
    pub stream: LoadedStream,
}

/// The corpus folder of this checkout.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every fixture of the corpus, read once for all the tests of this binary (26 of them read it;
/// reading and decoding it is a third of a second of an unoptimised build each time). Panics when
/// the corpus is missing, when a provider has no fixture, or when a fixture cannot be read or
/// names no dialect: a property over an empty or partial corpus would pass without checking
/// anything.
pub fn load_all() -> &'static [Sample] {
    static ALL: std::sync::OnceLock<Vec<Sample>> = std::sync::OnceLock::new();
    ALL.get_or_init(read_all)
}

fn read_all() -> Vec<Sample> {
    let root = corpus_root();
    let entries = list_fixtures(&root);
    let samples: Vec<Sample> = entries
        .iter()
        .map(|e| {
            let name = format!("{}/{}", e.provider, e.name);
            let provider: Provider = e
                .provider
                .parse()
                .unwrap_or_else(|err| panic!("{name}: provider folder: {err}"));
            let stream =
                load_stream(&e.path).unwrap_or_else(|err| panic!("{name}: unreadable: {err:#}"));
            let header = stream
                .dialect
                .as_deref()
                .unwrap_or_else(|| panic!("{name}: the fixture names no dialect"));
            let dialect = Dialect::parse(header, Some(provider))
                .unwrap_or_else(|err| panic!("{name}: header dialect: {err}"));
            Sample {
                name,
                provider,
                dialect,
                stream,
            }
        })
        .collect();
    for provider in [Provider::Claude, Provider::Codex, Provider::Opencode] {
        assert!(
            samples.iter().any(|s| s.provider == provider),
            "no {provider} fixture under {}: the corpus is missing",
            root.display()
        );
    }
    samples
}

/// The fixture named `provider/name`; panics when the corpus lacks it.
pub fn by_name<'s>(samples: &'s [Sample], name: &str) -> &'s Sample {
    samples
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the corpus"))
}

impl Sample {
    /// The options `toolnorm verify` normalizes this fixture with.
    pub fn options(&self) -> NormalizeOptions<'_> {
        NormalizeOptions {
            provider: Some(self.provider),
            dialect: Some(self.dialect),
            cwd: self.stream.cwd.as_deref(),
        }
    }

    /// The normalizer's output for the whole fixture.
    pub fn normalize(&self) -> NormalizedDocument {
        normalize(&self.stream.input(), self.options())
            .unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// Length in bytes of the stream as `toolnorm cat` prints it.
    pub fn len(&self) -> usize {
        self.stream.bytes().len()
    }

    /// Where each line after the first starts: the prefixes that end on a line boundary.
    pub fn line_starts(&self) -> Vec<usize> {
        self.stream.spans().iter().skip(1).map(|s| s.0).collect()
    }

    /// The stream as a recording cut after `len` bytes would hold it: the lines that start before
    /// the cut, the last one cut short (and then without its newline). Directions stay as
    /// recorded.
    pub fn prefix(&self, len: usize) -> Input<'_> {
        let bytes = &self.stream.bytes()[..len.min(self.len())];
        let lines = self
            .stream
            .spans()
            .iter()
            .take_while(|s| s.0 < bytes.len())
            .map(|&(start, end, direction, terminated, number)| RawLine {
                number,
                bytes: &bytes[start..end.min(bytes.len())],
                direction,
                unterminated: !terminated || end >= bytes.len(),
                text: None,
            })
            .collect();
        Input::from_lines(bytes, lines)
    }

    /// The normalizer's output for the first `len` bytes, in the fixture's dialect (a prefix may
    /// be too short to detect it).
    pub fn normalize_prefix(&self, len: usize) -> NormalizedDocument {
        normalize(&self.prefix(len), self.options())
            .unwrap_or_else(|e| panic!("{} cut at {len}: {e}", self.name))
    }
}
