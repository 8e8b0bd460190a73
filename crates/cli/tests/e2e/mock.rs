//! A mock model server for the end-to-end host tests (std + serde_json).
//!
//! It speaks the three streaming formats the hosts use:
//! - Anthropic Messages (`POST /v1/messages`, SSE when `"stream": true`,
//!   plain JSON otherwise) for Claude Code;
//! - OpenAI Responses (`POST /v1/responses`, SSE) for Codex;
//! - Gemini `…:streamGenerateContent?alt=sse` (and `:generateContent`,
//!   `:countTokens`) for Gemini CLI.
//!
//! Turn logic, per request: a request that already carries a tool result
//! (`tool_result`, `function_call_output`, `functionResponse`) is answered
//! with plain text; otherwise, while fewer than `max_tool_calls` tool calls
//! were sent and the request offers the host's shell tool, it is answered
//! with ONE shell tool call running the configured command; anything else
//! gets plain text. Every request is recorded (method, path, body, what was
//! answered) so a test can see whether a tool result came back and what the
//! host said about the call.
//!
//! It binds 127.0.0.1 only and never connects anywhere.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};

/// The text every plain answer carries.
pub const DONE_TEXT: &str = "Mock model: done.";

/// Largest request body accepted (hosts send the whole conversation).
const MAX_BODY: usize = 64 << 20;

/// What the server was asked and what it answered.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub body: Value,
    /// `tool_call:<tool name>`, `text`, `json`, `not_found`, `bad_request`.
    pub answered: String,
}

impl Recorded {
    /// The tool results this request carries (the text the host fed back
    /// to the model after the tool call: output or error).
    pub fn tool_results(&self) -> Vec<String> {
        let mut out = Vec::new();
        collect_tool_results(&self.body, &mut out);
        out
    }
}

/// One server: a listener thread answering each connection on its own
/// thread.
pub struct MockServer {
    pub port: u16,
    log: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

#[derive(Clone)]
struct Shared {
    command: String,
    max_tool_calls: usize,
    tool_calls: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<Recorded>>>,
}

impl MockServer {
    /// Start a server on 127.0.0.1 (OS-chosen port) whose first tool-bearing
    /// request is answered with a shell call running `command`.
    pub fn start(command: &str) -> std::io::Result<MockServer> {
        Self::start_with(command, 1)
    }

    pub fn start_with(command: &str, max_tool_calls: usize) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Shared {
            command: command.to_string(),
            max_tool_calls,
            tool_calls: Arc::new(AtomicUsize::new(0)),
            log: Arc::clone(&log),
        };
        let stop2 = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("mock-model".into())
            .spawn(move || accept_loop(listener, shared, stop2))?;
        Ok(MockServer {
            port,
            log,
            stop,
            handle: Some(handle),
        })
    }

    /// Everything recorded so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Shared, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let s = shared.clone();
                let _ = std::thread::Builder::new()
                    .name("mock-model-conn".into())
                    .spawn(move || {
                        let _ = serve_connection(stream, &s);
                    });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

/// Read one HTTP/1.1 request (Content-Length or chunked body).
fn read_request(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut content_length: Option<usize> = None;
    let mut chunked = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 {
            return Ok(None);
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "content-length" {
                content_length = value.parse().ok();
            } else if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked")
            {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size_line = String::new();
            if reader.read_line(&mut size_line)? == 0 {
                break;
            }
            let size_hex = size_line.trim().split(';').next().unwrap_or("0");
            let size = usize::from_str_radix(size_hex, 16).unwrap_or(0);
            if size == 0 {
                // Trailers until an empty line.
                loop {
                    let mut t = String::new();
                    if reader.read_line(&mut t)? == 0 || t.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            if body.len() + size > MAX_BODY {
                return Err(std::io::Error::other("body too large"));
            }
            let mut chunk = vec![0u8; size];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk);
            let mut crlf = String::new();
            reader.read_line(&mut crlf)?;
        }
    } else if let Some(n) = content_length {
        if n > MAX_BODY {
            return Err(std::io::Error::other("body too large"));
        }
        body = vec![0u8; n];
        reader.read_exact(&mut body)?;
    }
    Ok(Some(Request { method, path, body }))
}

fn serve_connection(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    // One request per connection: the answer closes it (hosts reconnect).
    let Some(req) = read_request(&mut reader)? else {
        return Ok(());
    };
    let (status, content_type, body, answered, parsed) = answer(&req, shared);
    if let Ok(mut log) = shared.log.lock() {
        log.push(Recorded {
            method: req.method.clone(),
            path: req.path.clone(),
            body: parsed,
            answered,
        });
    }
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    );
    writer.write_all(head.as_bytes())?;
    writer.write_all(body.as_bytes())?;
    writer.flush()
}

type Answer = (&'static str, &'static str, String, String, Value);

fn answer(req: &Request, shared: &Shared) -> Answer {
    let parsed: Value = serde_json::from_slice(&req.body).unwrap_or_else(|_| {
        if req.body.is_empty() {
            Value::Null
        } else {
            Value::String(
                String::from_utf8_lossy(&req.body)
                    .chars()
                    .take(4096)
                    .collect(),
            )
        }
    });
    let path = req.path.split('?').next().unwrap_or_default();
    let ok = "200 OK";
    let sse = "text/event-stream";
    let js = "application/json";
    if req.method == "POST" && path.ends_with("/messages/count_tokens") {
        return (
            ok,
            js,
            json!({"input_tokens": 10}).to_string(),
            "json".into(),
            parsed,
        );
    }
    if req.method == "POST" && path.ends_with("/messages") {
        let turn = decide(&parsed, Format::Anthropic, shared);
        let stream = parsed.get("stream").and_then(Value::as_bool) == Some(true);
        let model = parsed
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("claude-mock")
            .to_string();
        let body = if stream {
            anthropic_sse(&turn, &model)
        } else {
            anthropic_json(&turn, &model).to_string()
        };
        return (
            ok,
            if stream { sse } else { js },
            body,
            turn.label(),
            parsed,
        );
    }
    if req.method == "POST" && path.ends_with("/responses") {
        let turn = decide(&parsed, Format::Responses, shared);
        return (ok, sse, responses_sse(&turn), turn.label(), parsed);
    }
    if req.method == "POST" && path.contains(":streamGenerateContent") {
        let turn = decide(&parsed, Format::Gemini, shared);
        let chunk = gemini_chunk(&turn);
        return (
            ok,
            sse,
            format!("data: {chunk}\r\n\r\n"),
            turn.label(),
            parsed,
        );
    }
    if req.method == "POST" && path.contains(":generateContent") {
        // Side requests (model routing, next-speaker checks): never a tool
        // call; JSON that fits the requested schema when JSON is asked for.
        let (text, label) = match gemini_json_schema(&parsed) {
            Some(schema) => (schema_value(schema).to_string(), "json"),
            None => (DONE_TEXT.to_string(), "text"),
        };
        let body = gemini_text_chunk(&text).to_string();
        return (ok, js, body, label.into(), parsed);
    }
    if req.method == "POST" && path.contains(":countTokens") {
        return (
            ok,
            js,
            json!({"totalTokens": 10}).to_string(),
            "json".into(),
            parsed,
        );
    }
    if req.method == "GET" && path.ends_with("/models") {
        return (
            ok,
            js,
            json!({"data": [], "models": []}).to_string(),
            "json".into(),
            parsed,
        );
    }
    (
        "404 Not Found",
        js,
        json!({"error": {"message": "mock: not found", "type": "not_found"}}).to_string(),
        "not_found".into(),
        parsed,
    )
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Format {
    Anthropic,
    Responses,
    Gemini,
}

/// What the server answers.
enum Turn {
    Text,
    /// A shell tool call: tool name and its JSON arguments.
    Tool(String, Value),
}

impl Turn {
    fn label(&self) -> String {
        match self {
            Turn::Text => "text".into(),
            Turn::Tool(name, _) => format!("tool_call:{name}"),
        }
    }
}

fn decide(body: &Value, format: Format, shared: &Shared) -> Turn {
    let mut results = Vec::new();
    collect_tool_results(body, &mut results);
    if !results.is_empty() {
        return Turn::Text;
    }
    let Some(tool) = shell_tool(body, format, &shared.command) else {
        return Turn::Text;
    };
    let n = shared.tool_calls.fetch_add(1, Ordering::SeqCst);
    if n >= shared.max_tool_calls {
        return Turn::Text;
    }
    tool
}

/// Names of the function tools a request offers.
fn offered_tools(body: &Value, format: Format) -> Vec<String> {
    let mut names = Vec::new();
    let Some(tools) = body.get("tools").and_then(Value::as_array) else {
        return names;
    };
    for t in tools {
        match format {
            Format::Anthropic | Format::Responses => {
                if let Some(n) = t.get("name").and_then(Value::as_str) {
                    names.push(n.to_string());
                } else if let Some(ty) = t.get("type").and_then(Value::as_str) {
                    names.push(ty.to_string());
                }
            }
            Format::Gemini => {
                for key in ["functionDeclarations", "function_declarations"] {
                    if let Some(decls) = t.get(key).and_then(Value::as_array) {
                        for d in decls {
                            if let Some(n) = d.get("name").and_then(Value::as_str) {
                                names.push(n.to_string());
                            }
                        }
                    }
                }
            }
        }
    }
    names
}

/// The shell tool call for the host, if the request offers a shell tool.
fn shell_tool(body: &Value, format: Format, command: &str) -> Option<Turn> {
    let offered = offered_tools(body, format);
    let has = |n: &str| offered.iter().any(|o| o == n);
    match format {
        Format::Anthropic if has("Bash") => Some(Turn::Tool(
            "Bash".into(),
            json!({"command": command, "description": "mock shell call"}),
        )),
        Format::Gemini if has("run_shell_command") => Some(Turn::Tool(
            "run_shell_command".into(),
            json!({"command": command, "description": "mock shell call"}),
        )),
        Format::Responses => {
            // Codex offers one of its shell tools, by version and settings.
            if has("shell_command") {
                Some(Turn::Tool(
                    "shell_command".into(),
                    json!({"command": command}),
                ))
            } else if has("exec_command") {
                Some(Turn::Tool("exec_command".into(), json!({"cmd": command})))
            } else if has("shell") {
                Some(Turn::Tool(
                    "shell".into(),
                    json!({"command": ["bash", "-lc", command]}),
                ))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Tool results anywhere in a request body, as text.
fn collect_tool_results(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            let ty = m.get("type").and_then(Value::as_str).unwrap_or_default();
            if matches!(
                ty,
                "tool_result"
                    | "function_call_output"
                    | "custom_tool_call_output"
                    | "local_shell_call_output"
            ) {
                let c = m.get("content").or_else(|| m.get("output"));
                out.push(match c {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                });
                return;
            }
            if let Some(fr) = m
                .get("functionResponse")
                .or_else(|| m.get("function_response"))
            {
                out.push(fr.to_string());
                return;
            }
            for x in m.values() {
                collect_tool_results(x, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                collect_tool_results(x, out);
            }
        }
        _ => {}
    }
}

// ----- Anthropic Messages -------------------------------------------------

fn anthropic_usage() -> Value {
    json!({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn anthropic_json(turn: &Turn, model: &str) -> Value {
    let (content, stop) = match turn {
        Turn::Text => (json!([{"type": "text", "text": DONE_TEXT}]), "end_turn"),
        Turn::Tool(name, input) => (
            json!([{"type": "tool_use", "id": "toolu_mock_0001", "name": name, "input": input}]),
            "tool_use",
        ),
    };
    json!({
        "id": "msg_mock_0001", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": anthropic_usage(),
    })
}

fn sse_event(out: &mut String, event: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(event);
    out.push('\n');
    out.push_str("data: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

fn anthropic_sse(turn: &Turn, model: &str) -> String {
    let mut s = String::new();
    sse_event(
        &mut s,
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": "msg_mock_0001", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    );
    let stop = match turn {
        Turn::Text => {
            sse_event(
                &mut s,
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            sse_event(
                &mut s,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": DONE_TEXT}}),
            );
            "end_turn"
        }
        Turn::Tool(name, input) => {
            sse_event(
                &mut s,
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_mock_0001", "name": name, "input": {}}}),
            );
            sse_event(
                &mut s,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            );
            "tool_use"
        }
    };
    sse_event(
        &mut s,
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    );
    sse_event(
        &mut s,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    );
    sse_event(&mut s, "message_stop", &json!({"type": "message_stop"}));
    s
}

// ----- OpenAI Responses ---------------------------------------------------

fn responses_sse(turn: &Turn) -> String {
    let mut s = String::new();
    let created = json!({"type": "response.created", "response": {"id": "resp_mock_0001", "object": "response", "status": "in_progress", "output": []}});
    sse_event(&mut s, "response.created", &created);
    let item = match turn {
        Turn::Text => json!({
            "type": "message", "id": "msg_mock_0001", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": DONE_TEXT, "annotations": []}]}),
        Turn::Tool(name, args) => json!({
            "type": "function_call", "id": "fc_mock_0001", "call_id": "call_mock_0001",
            "name": name, "arguments": args.to_string(), "status": "completed"}),
    };
    sse_event(
        &mut s,
        "response.output_item.done",
        &json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
    );
    sse_event(
        &mut s,
        "response.completed",
        &json!({"type": "response.completed", "response": {
            "id": "resp_mock_0001", "object": "response", "status": "completed", "output": [item],
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 15}}}),
    );
    s
}

// ----- Gemini ---------------------------------------------------------------

/// The response schema of a Gemini request that asks for JSON.
fn gemini_json_schema(body: &Value) -> Option<&Value> {
    let gc = body.get("generationConfig")?;
    if gc.get("responseMimeType").and_then(Value::as_str) != Some("application/json") {
        return None;
    }
    gc.get("responseJsonSchema")
        .or_else(|| gc.get("responseSchema"))
        .or(Some(&Value::Null))
}

/// A small value that satisfies a JSON schema (types in any case).
fn schema_value(schema: &Value) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("object")
        .to_ascii_lowercase();
    match ty.as_str() {
        "string" => json!("mock"),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(10)),
        "boolean" => json!(false),
        "array" => json!([]),
        _ => {
            let mut m = serde_json::Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    m.insert(k.clone(), schema_value(v));
                }
            }
            Value::Object(m)
        }
    }
}

fn gemini_text_chunk(text: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-mock",
    })
}

fn gemini_chunk(turn: &Turn) -> Value {
    let part = match turn {
        Turn::Text => json!({"text": DONE_TEXT}),
        Turn::Tool(name, args) => json!({"functionCall": {"name": name, "args": args}}),
    };
    json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-mock",
    })
}
