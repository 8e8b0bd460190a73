//! Shared test helpers: an in-memory Backend, a raw HTTP/1.1 client (so tests
//! control every header, `Host` included) and sample requests.
#![allow(dead_code)]

pub mod webdriver;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use shellgate_serve::{
    AppliedOutcome, Backend, BackendError, GrantEntry, GrantRef, HistoryEntry, HistoryFilter,
    PendingRequest, PublishRequest, RevokeOutcome, ServeConfig, ServerHandle, SessionEntry,
    SessionGrantEntry, Verdict,
};

pub const ALL: [&str; 5] = [
    "approve_once",
    "approve_session",
    "approve_always",
    "approve_everywhere",
    "deny",
];

/// What the fake backend saw and keeps: a tiny store and state db in memory.
#[derive(Default)]
pub struct FakeBackend {
    /// (request id, command, option) per apply call, in order.
    pub applied: Mutex<Vec<(String, String, String)>>,
    pub grants: Mutex<Vec<GrantEntry>>,
    pub session_grants: Mutex<Vec<(String, SessionGrantEntry)>>,
    pub history: Mutex<Vec<HistoryEntry>>,
    /// Each apply sleeps this long (to widen races).
    pub delay: Mutex<Duration>,
    pub fail: AtomicBool,
    /// When set, review plays the engine: the request is shown as this
    /// (display, header, bullets, hint, options), whatever was published.
    pub engine_view: Mutex<Option<PublishRequest>>,
    /// Review refuses every request (the engine would not ask).
    pub refuse_review: AtomicBool,
    /// Requests review saw, in order.
    pub reviewed: Mutex<Vec<PublishRequest>>,
}

impl FakeBackend {
    pub fn new() -> Arc<FakeBackend> {
        Arc::new(FakeBackend::default())
    }
    pub fn applied(&self) -> Vec<(String, String, String)> {
        self.applied.lock().unwrap().clone()
    }
    pub fn options_applied_to(&self, id: &str) -> Vec<String> {
        self.applied()
            .into_iter()
            .filter(|a| a.0 == id)
            .map(|a| a.2)
            .collect()
    }
}

fn verb_of(command: &str) -> String {
    command.split_whitespace().next().unwrap_or("").to_string()
}

impl Backend for FakeBackend {
    fn review(&self, req: &PublishRequest) -> Result<PublishRequest, BackendError> {
        self.reviewed.lock().unwrap().push(req.clone());
        if self.refuse_review.load(Ordering::SeqCst) {
            return Err(BackendError::Failed(
                "the gate does not ask about this call".into(),
            ));
        }
        let mut out = req.clone();
        if let Some(v) = self.engine_view.lock().unwrap().as_ref() {
            out.display = v.display.clone();
            out.header = v.header.clone();
            out.bullets = v.bullets.clone();
            out.hint = v.hint.clone();
            out.options = v.options.clone();
            out.cwd = v.cwd.clone();
            out.project_dir = v.project_dir.clone();
            out.agent_pid = None;
        }
        Ok(out)
    }

    fn apply(&self, req: &PendingRequest, option: &str) -> Result<AppliedOutcome, BackendError> {
        let d = *self.delay.lock().unwrap();
        if !d.is_zero() {
            std::thread::sleep(d);
        }
        self.applied.lock().unwrap().push((
            req.id.clone(),
            req.request.command.clone(),
            option.to_string(),
        ));
        if self.fail.load(Ordering::SeqCst) {
            return Err(BackendError::Failed("store is read-only".into()));
        }
        let verb = verb_of(&req.request.command);
        let cwd = req.request.cwd.clone();
        let loc = cwd
            .clone()
            .unwrap_or_else(|| "(no working directory)".into());
        let session = req.request.session.clone().unwrap_or_default();
        let audience = req
            .request
            .context
            .get("audience")
            .and_then(Value::as_str)
            .unwrap_or("personal")
            .to_string();
        let resolution = match option {
            "approve_once" => "Approved (no save)".to_string(),
            "approve_session" => {
                self.session_grants.lock().unwrap().push((
                    session,
                    SessionGrantEntry {
                        audience: audience.clone(),
                        tool: req.request.tool.clone(),
                        verb: verb.clone(),
                        directory: cwd.clone(),
                    },
                ));
                format!("Saved for this chat: {verb} in {loc}")
            }
            "approve_always" | "approve_everywhere" => {
                let dir = if option == "approve_always" {
                    cwd.clone()
                } else {
                    None
                };
                let label = match &dir {
                    Some(d) => format!("{verb} in {d}"),
                    None => format!("{verb} anywhere"),
                };
                self.grants.lock().unwrap().push(GrantEntry {
                    audience: audience.clone(),
                    tool: req.request.tool.clone(),
                    verb: verb.clone(),
                    directory: dir,
                    created_at: Some("2026-11-24T10:00:00+00:00".into()),
                    label,
                });
                if option == "approve_always" {
                    format!("Saved: {verb} in {loc}")
                } else {
                    format!("Saved: {verb} anywhere")
                }
            }
            _ => "Denied".to_string(),
        };
        let decision = if option == "deny" {
            Verdict::Deny
        } else {
            Verdict::Allow
        };
        self.history.lock().unwrap().insert(
            0,
            HistoryEntry {
                time: "2026-11-24T10:00:00+00:00".into(),
                session: req.request.session.clone(),
                tool: req.request.tool.clone(),
                command: req.request.command.clone(),
                cwd: req.request.cwd.clone(),
                decision: if option == "deny" { "deny" } else { "allow" }.into(),
                reason: format!("human:{option}"),
                verbs: vec![verb],
                source: format!("serve:{}", req.request.host),
            },
        );
        Ok(AppliedOutcome {
            decision,
            resolution,
            skipped: vec![],
        })
    }

    fn history(&self, f: &HistoryFilter) -> Result<Vec<HistoryEntry>, BackendError> {
        Ok(self
            .history
            .lock()
            .unwrap()
            .iter()
            .filter(|h| {
                f.session
                    .as_ref()
                    .is_none_or(|s| h.session.as_ref() == Some(s))
            })
            .filter(|h| f.decision.as_ref().is_none_or(|d| &h.decision == d))
            .filter(|h| f.verb.as_ref().is_none_or(|v| h.verbs.contains(v)))
            .take(f.limit.unwrap_or(200))
            .cloned()
            .collect())
    }

    fn grants(&self) -> Result<Vec<GrantEntry>, BackendError> {
        Ok(self.grants.lock().unwrap().clone())
    }

    fn revoke(&self, g: &GrantRef) -> Result<RevokeOutcome, BackendError> {
        let mut grants = self.grants.lock().unwrap();
        let before = grants.len();
        let mut label = String::new();
        grants.retain(|x| {
            let hit = x.audience == g.audience
                && x.tool == g.tool
                && x.verb == g.verb
                && x.directory == g.directory;
            if hit {
                label = x.label.clone();
            }
            !hit
        });
        if grants.len() == before {
            return Err(BackendError::NotFound("No matching approval found.".into()));
        }
        Ok(RevokeOutcome {
            removed: before - grants.len(),
            message: format!("Removed '{label}' from {} / {}.", g.audience, g.tool),
        })
    }

    fn sessions(&self) -> Result<Vec<SessionEntry>, BackendError> {
        let sg = self.session_grants.lock().unwrap();
        let mut ids: Vec<String> = sg.iter().map(|(s, _)| s.clone()).collect();
        ids.dedup();
        Ok(ids
            .into_iter()
            .map(|id| SessionEntry {
                grants: sg
                    .iter()
                    .filter(|(s, _)| *s == id)
                    .map(|(_, g)| g.clone())
                    .collect(),
                id,
                audience: "personal".into(),
                channel: "interactive".into(),
                parent: None,
                project_dir: Some("/home/u/app".into()),
                created_at: "2026-11-24T09:00:00+00:00".into(),
                ended_at: None,
            })
            .collect())
    }
}

/// A request as a hook would publish it.
pub fn request(command: &str, options: &[&str]) -> PublishRequest {
    PublishRequest {
        tool: "shell_execute".into(),
        command: command.into(),
        display: command.into(),
        cwd: Some("/home/u/app".into()),
        session: Some("s1".into()),
        host: "claude-code".into(),
        project_dir: Some("/home/u/app".into()),
        header: format!("Approve {} in /home/u/app?", verb_of(command)),
        bullets: vec![],
        hint: None,
        options: options.iter().map(|s| s.to_string()).collect(),
        decision: json!({"decision": "ask", "command": command}),
        context: json!({"audience": "personal"}),
        agent_pid: None,
    }
}

pub struct Service {
    pub dir: tempfile::TempDir,
    pub handle: Option<ServerHandle>,
    pub backend: Arc<FakeBackend>,
    /// (cookie, session token) of each login.
    pub keys: Mutex<Vec<(String, String)>>,
}

impl Service {
    pub fn start() -> Service {
        let dir = tempfile::tempdir().unwrap();
        let backend = FakeBackend::new();
        let handle =
            shellgate_serve::start(ServeConfig::new(dir.path().join("state")), backend.clone())
                .expect("service starts");
        Service {
            dir,
            handle: Some(handle),
            backend,
            keys: Mutex::new(Vec::new()),
        }
    }
    pub fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }
    pub fn h(&self) -> &ServerHandle {
        self.handle.as_ref().unwrap()
    }
    pub fn addr(&self) -> SocketAddr {
        self.h().addr()
    }
    /// Log in with a fresh one-time token; returns the `name=value` cookie.
    pub fn login(&self) -> String {
        let url = self.h().new_login_url().unwrap();
        let path = url
            .split_once(&format!("{}", self.addr()))
            .unwrap()
            .1
            .to_string();
        let r = http(self.addr(), "GET", &path, &[], None);
        assert_eq!(r.status, 303, "{}", r.body);
        let set = r.header("set-cookie").expect("cookie set");
        let cookie = set.split(';').next().unwrap().trim().to_string();
        let location = r.header("location").expect("redirect");
        let csrf = location
            .strip_prefix("/#csrf=")
            .unwrap_or_else(|| panic!("token in the fragment: {location}"))
            .to_string();
        self.keys.lock().unwrap().push((cookie.clone(), csrf));
        cookie
    }
    /// The session token of a logged-in cookie, as the page holds it (from
    /// the login redirect's fragment).
    pub fn csrf(&self, cookie: &str) -> String {
        self.keys
            .lock()
            .unwrap()
            .iter()
            .find(|(c, _)| c == cookie)
            .map(|(_, k)| k.clone())
            .expect("a cookie from login()")
    }
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr())
    }
}

/// Wait until `f` holds (polling, test side only), or panic after `secs`.
pub fn wait_until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if f() {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("timed out waiting for {what}");
}

/// Wait for the service to list `n` pending requests; return them.
pub fn wait_pending(state: &Path, n: usize) -> Vec<PendingRequest> {
    let mut out = vec![];
    wait_until(10, &format!("{n} pending requests"), || {
        out = shellgate_serve::client::list_pending(state).unwrap();
        out.len() == n
    });
    out
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

fn request_text(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> String {
    let mut req = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str("Content-Type: application/json\r\n");
        req.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    req.push_str("Connection: close\r\n\r\n");
    if let Some(b) = body {
        req.push_str(b);
    }
    req
}

fn read_head(r: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {line:?}"));
    let mut headers = vec![];
    loop {
        let mut l = String::new();
        r.read_line(&mut l).unwrap();
        let l = l.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    (status, headers)
}

/// One HTTP/1.1 exchange; `Host` defaults to the bound address.
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Resp {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request_text(addr, method, path, headers, body).as_bytes())
        .unwrap();
    let mut r = BufReader::new(s);
    let (status, headers) = read_head(&mut r);
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let mut raw = Vec::new();
    if chunked {
        loop {
            let mut l = String::new();
            r.read_line(&mut l).unwrap();
            let n = usize::from_str_radix(l.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).unwrap();
            raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
    {
        raw = vec![0; n];
        r.read_exact(&mut raw).unwrap();
    } else {
        r.read_to_end(&mut raw).unwrap();
    }
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&raw).into_owned(),
    }
}

/// An open server-sent-events stream.
pub struct Sse {
    r: BufReader<TcpStream>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Sse {
    pub fn open(addr: SocketAddr, headers: &[(&str, &str)]) -> Sse {
        Sse::open_path(addr, "/api/events", headers)
    }

    pub fn open_path(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Sse {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(request_text(addr, "GET", path, headers, None).as_bytes())
            .unwrap();
        let mut r = BufReader::new(s);
        let (status, headers) = read_head(&mut r);
        Sse { r, status, headers }
    }

    /// The `data` of the next `pending` event (chunk framing skipped).
    pub fn next_pending(&mut self) -> Value {
        let mut event = String::new();
        loop {
            let mut l = String::new();
            let n = self.r.read_line(&mut l).expect("sse line");
            assert!(n > 0, "event stream ended");
            let l = l.trim_end();
            if let Some(e) = l.strip_prefix("event:") {
                event = e.trim().to_string();
            } else if let Some(d) = l.strip_prefix("data:") {
                if event == "pending" {
                    return serde_json::from_str(d.trim()).expect("event json");
                }
            }
        }
    }

    /// Next `pending` event whose list satisfies `f`.
    pub fn until(&mut self, f: impl Fn(&Vec<Value>) -> bool) -> Vec<Value> {
        loop {
            let v = self.next_pending();
            let list = v["pending"].as_array().cloned().unwrap_or_default();
            if f(&list) {
                return list;
            }
        }
    }
}
