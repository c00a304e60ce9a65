//! The ACP wire shapes the `acp` dialect reads: JSON-RPC 2.0 messages (requests, responses,
//! notifications) and, inside them, the tool-call shapes of `session/update` and
//! `session/request_permission`. Lenient like ACP's own types: every field is optional and a
//! field of the wrong type reads as absent, so an agent's odd frame loses that field, not the line.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A field that reads as `None` when it is absent, `null` or of another type.
fn lenient<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Option<T>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(serde_json::from_value(v).ok())
}

/// One JSON-RPC message: a request (`id` + `method`), a notification (`method`), or a response
/// (`id` + `result` or `error`). The payloads stay raw text, borrowed from the line, until the
/// message turns out to matter: most frames of a session are text chunks and file reads.
#[derive(Deserialize, Debug, Default)]
pub(crate) struct Message<'a> {
    #[serde(default)]
    pub id: Option<Value>,
    #[serde(default, deserialize_with = "lenient")]
    pub method: Option<String>,
    #[serde(default, borrow)]
    pub params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub error: Option<&'a RawValue>,
}

impl Message<'_> {
    /// The request id as a map key (`1` and `"1"` stay apart).
    pub fn id_key(&self) -> Option<String> {
        self.id
            .as_ref()
            .filter(|v| !v.is_null())
            .map(Value::to_string)
    }

    pub fn is_response(&self) -> bool {
        self.method.is_none() && (self.result.is_some() || self.error.is_some())
    }
}

/// What a `session/update` is (`update.sessionUpdate`), read without building anything else;
/// `None` when `update` is not an object or names no kind as a string, so the full reading
/// decides (and says what is wrong).
pub(crate) fn session_update_kind(params: &RawValue) -> Option<String> {
    struct Kind(Option<String>);
    impl<'de> Deserialize<'de> for Kind {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Kind;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an update object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Kind, A::Error> {
                    let mut kind = None;
                    while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                        if key == "sessionUpdate" {
                            kind = Some(map.next_value::<Value>()?);
                        } else {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                    Ok(Kind(kind.and_then(|v| v.as_str().map(str::to_owned))))
                }
            }
            d.deserialize_map(V)
        }
    }
    #[derive(Deserialize)]
    struct Params {
        update: Kind,
    }
    serde_json::from_str::<Params>(params.get()).ok()?.update.0
}

/// `params` of `session/update`.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionNotification {
    pub update: Update,
}

/// A `session/update`'s update: `sessionUpdate` names it; the tool-call fields sit beside it
/// (read as one flat struct: no buffering of the whole update, as `#[serde(flatten)]` would).
pub(crate) type Update = ToolCallFields;

/// The fields of a `tool_call`, a `tool_call_update`, or a permission request's `toolCall`. On an
/// update, absent means unchanged.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolCallFields {
    /// What a `session/update` is (`tool_call`, `tool_call_update`, `plan`, ...); absent in a
    /// permission request's `toolCall`.
    #[serde(default, deserialize_with = "lenient")]
    pub session_update: Option<String>,
    /// A `plan` update's entries.
    #[serde(default)]
    pub entries: Option<Value>,
    #[serde(default, deserialize_with = "lenient")]
    pub tool_call_id: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub title: Option<String>,
    /// The tool's programmatic name (a recent addition to ACP; few agents send it).
    #[serde(default, deserialize_with = "lenient")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub content: Option<Vec<Value>>,
    #[serde(default)]
    pub raw_input: Option<Value>,
    #[serde(default)]
    pub raw_output: Option<Value>,
    #[serde(default, rename = "_meta", deserialize_with = "lenient")]
    pub meta: Option<Map<String, Value>>,
}

/// `params` of `session/request_permission` (agent → client).
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionRequest {
    pub tool_call: ToolCallFields,
    #[serde(default, deserialize_with = "lenient")]
    pub options: Option<Vec<PermissionOption>>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionOption {
    #[serde(default, deserialize_with = "lenient")]
    pub option_id: Option<String>,
    /// `allow_once`, `allow_always`, `reject_once`, `reject_always`.
    #[serde(default, deserialize_with = "lenient")]
    pub kind: Option<String>,
}

/// `result.outcome` of the client's answer to a permission request.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionOutcome {
    /// `selected` or `cancelled`.
    #[serde(default, deserialize_with = "lenient")]
    pub outcome: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub option_id: Option<String>,
}

/// `params` of the client's `session/new`, `session/load` and `session/resume`: the MCP servers
/// it hands the agent (`mcpServers`, each a stdio, HTTP or SSE server with a `name`). An entry
/// that is not an object with a string `name` is skipped, as ACP's schema skips invalid items.
#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionSetup {
    #[serde(default, deserialize_with = "lenient")]
    pub mcp_servers: Option<Vec<Value>>,
    /// The session's working directory (`session/new`'s `cwd`).
    #[serde(default, deserialize_with = "lenient")]
    pub cwd: Option<String>,
}

impl SessionSetup {
    /// The declared servers' names, as given.
    pub fn server_names(&self) -> impl Iterator<Item = &str> {
        self.mcp_servers
            .iter()
            .flatten()
            .filter_map(|s| s.get("name").and_then(Value::as_str))
    }
}

/// The client's requests whose `params` declare MCP servers ([`SessionSetup`]).
pub(crate) const SESSION_SETUP_METHODS: [&str; 3] =
    ["session/new", "session/load", "session/resume"];

/// `result` of `initialize`: who the agent is.
#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitializeResult {
    #[serde(default, deserialize_with = "lenient")]
    pub agent_info: Option<Implementation>,
}

#[derive(Deserialize, Debug, Default, Clone)]
pub(crate) struct Implementation {
    #[serde(default, deserialize_with = "lenient")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub version: Option<String>,
}

/// A JSON-RPC error object.
#[derive(Deserialize, Debug, Default)]
pub(crate) struct RpcError {
    #[serde(default, deserialize_with = "lenient")]
    pub message: Option<String>,
}
