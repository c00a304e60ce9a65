//! The Codex normalizer on small hand-written streams: bad lines and bytes that are not UTF-8
//! become diagnostics while the rest of the stream is still read.

use toolnorm::normalize;
use toolnorm::providers::NormalizeOptions;
use toolnorm::stream::Input;

#[test]
fn bad_lines_are_diagnostics_and_the_rest_is_normalized() {
    let text = concat!(
        "\u{feff}{\"type\":\"thread.started\",\"thread_id\":\"t\"}\r\n",
        "not json\n",
        "\n",
        "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"command_execution\",\"command\":\"ls\",\"aggregated_output\":\"\",\"exit_code\":0,\"status\":\"completed\"}}\n",
        "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"brand_new_tool\"}}\n",
        "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":\"command_exec"
    );
    let input = Input::from_bytes(text.as_bytes());
    let doc = normalize(&input, NormalizeOptions::default()).unwrap();
    assert_eq!(doc.dialect, "exec");
    assert_eq!(doc.parts.len(), 1);
    let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [2, 5, 6], "{:?}", doc.diagnostics);
}

#[test]
fn invalid_utf8_is_reported() {
    let mut bytes = br#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"echo "#.to_vec();
    bytes.push(0xff);
    bytes.extend_from_slice(br#"","aggregated_output":"","exit_code":0,"status":"completed"}}"#);
    bytes.push(b'\n');
    let input = Input::from_bytes(&bytes);
    let doc = normalize(&input, NormalizeOptions::default()).unwrap();
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.diagnostics.len(), 1);
}
