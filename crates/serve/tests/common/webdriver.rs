//! A small W3C WebDriver client over chromedriver, for tests that drive the
//! approval page in a real headless Chromium (Debian's `chromium` and
//! `chromium-driver`; `scripts/install-chromium.sh`). Shared by this crate's
//! browser tests and the CLI's (`crates/cli/tests/serve_browser.rs`).
//!
//! Without /usr/bin/chromium or /usr/bin/chromedriver (or $CHROMIUM,
//! $CHROMEDRIVER) [`browser_tools`] prints SKIP and returns `None`, unless
//! SHELLGATE_REQUIRE_BROWSER=1 (then it panics).

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};

use serde_json::{json, Value};

use super::{http, wait_until};

/// One browser at a time: the machine has two cores.
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

pub fn tool(var: &str, default: &str) -> Option<PathBuf> {
    let p = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(default));
    p.exists().then_some(p)
}

/// The browser binaries, or None (after printing why) when the test must skip.
pub fn browser_tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    match (
        tool("CHROMIUM", "/usr/bin/chromium"),
        tool("CHROMEDRIVER", "/usr/bin/chromedriver"),
    ) {
        (Some(c), Some(d)) => Some((c, d)),
        _ => {
            let msg = format!(
                "SKIP {test}: chromium/chromedriver not installed (run scripts/install-chromium.sh)"
            );
            if std::env::var("SHELLGATE_REQUIRE_BROWSER").as_deref() == Ok("1") {
                panic!("{msg}");
            }
            eprintln!("{msg}");
            None
        }
    }
}

pub struct Driver {
    child: Child,
    addr: SocketAddr,
}

impl Driver {
    pub fn start(path: &Path) -> Driver {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let child = Command::new(path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let d = Driver { child, addr };
        wait_until(20, "chromedriver to listen", || {
            std::net::TcpStream::connect(addr).is_ok()
                && http(addr, "GET", "/status", &[], None).json()["value"]["ready"] == true
        });
        d
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A WebDriver session: one headless Chromium with a fresh profile.
pub struct Browser {
    driver: Driver,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub fn open(chromium: &Path, chromedriver: &Path) -> Browser {
        let driver = Driver::start(chromedriver);
        let profile = tempfile::tempdir().unwrap();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.display().to_string(),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-background-timer-throttling",
                    "--disable-renderer-backgrounding",
                    "--disable-backgrounding-occluded-windows",
                    "--window-size=1200,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ]
            }
        }}});
        let r = http(
            driver.addr,
            "POST",
            "/session",
            &[],
            Some(&caps.to_string()),
        );
        let v = r.json();
        let session = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {}", r.body))
            .to_string();
        Browser {
            driver,
            session,
            _profile: profile,
        }
    }

    pub fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("/session/{}{}", self.session, path);
        let body = body.map(|b| b.to_string());
        let r = http(self.driver.addr, method, &url, &[], body.as_deref());
        let v = r.json();
        if r.status != 200 {
            panic!("{method} {path}: {} {}", r.status, r.body);
        }
        v["value"].clone()
    }

    pub fn try_cmd(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("/session/{}{}", self.session, path);
        let body = body.map(|b| b.to_string());
        let r = http(self.driver.addr, method, &url, &[], body.as_deref());
        (r.status, r.json()["value"].clone())
    }

    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    pub fn url(&self) -> String {
        self.cmd("GET", "/url", None).as_str().unwrap().to_string()
    }

    pub fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// Element ids matching a CSS selector.
    pub fn find_all(&self, css: &str) -> Vec<String> {
        self.cmd(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        )
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.as_object()?.values().next()?.as_str().map(str::to_string))
        .collect()
    }

    pub fn wait_for(&self, css: &str, n: usize) -> Vec<String> {
        let mut found = vec![];
        wait_until(15, &format!("{n} × {css}"), || {
            found = self.find_all(css);
            found.len() == n
        });
        found
    }

    pub fn click(&self, element: &str) {
        self.cmd(
            "POST",
            &format!("/element/{element}/click"),
            Some(json!({})),
        );
    }

    /// A real mouse click at viewport coordinates (CSS pixels).
    pub fn click_at(&self, x: f64, y: f64) {
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "pointer", "id": "mouse",
                "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pointerMove", "x": x.round() as i64, "y": y.round() as i64, "origin": "viewport"},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}
            ]}]})),
        );
        self.cmd("DELETE", "/actions", None);
    }

    pub fn text(&self, element: &str) -> String {
        self.cmd("GET", &format!("/element/{element}/text"), None)
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// Type one key on whatever has the focus (the page's document).
    pub fn key(&self, k: &str) {
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "kbd", "actions": [
                {"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}
            ]}]})),
        );
        self.cmd("DELETE", "/actions", None);
    }

    pub fn alert_open(&self) -> bool {
        let (status, _) = self.try_cmd("GET", "/alert/text", None);
        status == 200
    }

    pub fn screenshot_png(&self) -> Vec<u8> {
        let b64 = self.cmd("GET", "/screenshot", None);
        base64_decode(b64.as_str().unwrap())
    }

    pub fn new_tab(&self) -> String {
        let v = self.cmd("POST", "/window/new", Some(json!({"type": "tab"})));
        v["handle"].as_str().unwrap().to_string()
    }

    pub fn current_tab(&self) -> String {
        self.cmd("GET", "/window", None)
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn switch_to(&self, handle: &str) {
        self.cmd("POST", "/window", Some(json!({ "handle": handle })));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            self.driver.addr,
            "DELETE",
            &format!("/session/{}", self.session),
            &[],
            None,
        );
    }
}

pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
