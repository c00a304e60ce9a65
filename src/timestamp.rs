//! RFC 3339 timestamps: the ones toolnorm writes (a recording's start and end, a recording's
//! default name) and the ones it reads (an imported transcript's line times, a part's
//! `startedAt`/`completedAt` in TN018 and the report's cards).

use std::time::SystemTime;

use chrono::{DateTime, SecondsFormat, Utc};

use crate::model::TimeValue;

/// Now, as RFC 3339 UTC with the clock's own precision: `2026-12-02T15:10:00.123456789Z`.
pub fn now_rfc3339() -> String {
    DateTime::<Utc>::from(SystemTime::now()).to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Now, UTC, as a name that sorts by time: `20261202-151000`.
pub fn now_compact() -> String {
    DateTime::<Utc>::from(SystemTime::now())
        .format("%Y%m%d-%H%M%S")
        .to_string()
}

/// Nanoseconds since the Unix epoch of an RFC 3339 timestamp (any offset); `None` for text that
/// is not one.
pub fn rfc3339_nanos(text: &str) -> Option<i128> {
    let t = DateTime::parse_from_rfc3339(text).ok()?;
    Some(i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos()))
}

/// Whole milliseconds since the Unix epoch of an RFC 3339 timestamp (toward zero).
pub fn rfc3339_millis(text: &str) -> Option<i128> {
    rfc3339_nanos(text).map(|ns| ns / 1_000_000)
}

/// Milliseconds since the Unix epoch of a part's timing value: epoch milliseconds as they are, an
/// RFC 3339 text read. Only two values of the same form are compared: a transcript's clock and a
/// tool's may disagree.
pub fn epoch_millis(v: &TimeValue) -> Option<i128> {
    match v {
        TimeValue::Millis(ms) => Some(i128::from(*ms)),
        TimeValue::Text(s) => rfc3339_millis(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let now = now_rfc3339();
        assert!(now.ends_with('Z'), "{now}");
        let ms = rfc3339_millis(&now).expect("a timestamp written here parses");
        assert!(ms > 1_700_000_000_000, "{ms}");
        let name = now_compact();
        assert_eq!(name.len(), 15, "{name}");
        assert_eq!(name.as_bytes()[8], b'-', "{name}");
        assert!(
            name.bytes()
                .filter(|b| *b != b'-')
                .all(|b| b.is_ascii_digit())
        );
    }

    #[test]
    fn offsets_and_fractions_are_read_and_non_timestamps_are_not() {
        assert_eq!(rfc3339_millis("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(rfc3339_millis("1970-01-01T01:00:01.250+01:00"), Some(1250));
        assert_eq!(
            rfc3339_millis("2026-12-02T15:10:00.5Z"),
            Some(1_796_224_200_500)
        );
        assert_eq!(rfc3339_millis("1969-12-31T23:59:59Z"), Some(-1000));
        assert_eq!(
            rfc3339_nanos("2026-12-02T15:10:00.000000789-00:30"),
            Some(1_796_226_000_000_000_789)
        );
        for bad in [
            "",
            "yesterday",
            "2026-12-02",
            "2026-13-02T00:00:00Z",
            "1789365998809",
        ] {
            assert_eq!(rfc3339_millis(bad), None, "{bad}");
        }
    }
}
