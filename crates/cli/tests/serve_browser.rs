//! The approval page of a real `shellgate serve` process, driven in a real
//! headless Chromium (Debian's `chromium` and `chromium-driver`,
//! `scripts/install-chromium.sh`), with requests published by real hook
//! processes: each click releases the waiting hook with the right decision
//! and the store shows the result; without the login token, or with a
//! foreign `Host`, nothing of a pending request is served.
//!
//! The WebDriver client and the raw HTTP client are the serve crate's test
//! helpers. Without Chromium the tests print SKIP and pass, unless
//! SHELLGATE_REQUIRE_BROWSER=1. SHELLGATE_UPDATE_SCREENSHOT=1 writes
//! docs/serve.png from the screenshot test.

#![cfg(target_os = "linux")]

#[path = "../../serve/tests/common/mod.rs"]
mod common;
mod serve_support;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use common::http;
use common::webdriver::{browser_tools, serial, Browser};
use serde_json::json;
use serve_support::*;

fn addr_of(url: &str) -> SocketAddr {
    url.trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect("address")
}

#[test]
fn each_click_releases_a_real_hook_and_the_store_shows_it() {
    let _g = serial();
    let Some((chromium, driver)) = browser_tools("each_click_releases_a_real_hook") else {
        return;
    };
    let env = Env::new();
    let p = env.proj();
    let svc = Serve::start(&env);
    let b = Browser::open(&chromium, &driver);
    b.goto(&svc.login);
    assert_eq!(b.url(), svc.url, "logged in, token gone from the address");
    assert_eq!(b.js("return document.cookie", json!([])), json!(""));
    b.wait_for("#pending-empty:not([hidden])", 1);
    for opt in ALL {
        let command = format!("git push origin page-{opt}");
        let hook = Hook::start(&env, "claude-code", "s1", &command, 120);
        let cards = b.wait_for("article.card", 1);
        let t = b.text(&cards[0]);
        assert!(t.contains(&format!("Approve {command} in {p}?")), "{t}");
        assert!(t.contains("claude-code") && t.contains("s1"), "{t}");
        let labels: Vec<String> = b
            .find_all("article.card button.opt")
            .iter()
            .map(|e| b.text(e))
            .collect();
        assert_eq!(
            labels,
            vec![
                "a Once",
                "b This chat",
                "c Always here",
                "d Always anywhere",
                "e Deny"
            ]
        );
        let btn = b.find_all(&format!("article.card button[data-option=\"{opt}\"]"));
        b.click(&btn[0]);
        let out = hook.finish();
        let want = if opt == "deny" { "deny" } else { "allow" };
        assert_eq!(
            out.permission(),
            want,
            "{opt}: {} {}",
            out.stdout,
            out.stderr
        );
        assert!(
            out.reason().contains(&format!("human:{opt}")),
            "{}",
            out.reason()
        );
        b.wait_for("article.card", 0);
    }
    // The store and the state db, as the engine reads them.
    let list = approvals(&env);
    assert!(
        list.contains(&format!("git push origin page-approve_always in {p}")),
        "{list}"
    );
    assert!(
        list.contains("git push origin page-approve_everywhere anywhere"),
        "{list}"
    );
    assert!(
        !list.contains("page-deny") && !list.contains("page-approve_once"),
        "{list}"
    );
    assert_eq!(
        env.check("s1", "git push origin page-approve_session")["decision"],
        "allow"
    );
    assert_eq!(
        env.check("s2", "git push origin page-approve_session")["decision"],
        "ask"
    );
    assert_eq!(
        env.check("s1", "git push origin page-approve_once")["decision"],
        "ask"
    );
    assert_eq!(
        env.check("s9", "git push origin page-approve_always")["decision"],
        "allow"
    );
    // The page's views read the same store and state.
    b.click(&b.find_all("button[data-tab=grants]")[0]);
    let rows = b.wait_for("#grant-rows tr", 2);
    let shown: Vec<String> = rows.iter().map(|r| b.text(r)).collect();
    assert!(
        shown.iter().any(|r| r.contains("page-approve_always in")),
        "{shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|r| r.contains("page-approve_everywhere anywhere")),
        "{shown:?}"
    );
    b.click(&b.find_all("button[data-tab=sessions]")[0]);
    let s = b.wait_for("#session-list section.session", 1);
    let t = b.text(&s[0]);
    assert!(
        t.contains("s1") && t.contains("git push origin page-approve_session"),
        "{t}"
    );
    b.click(&b.find_all("button[data-tab=history]")[0]);
    b.js(
        "document.querySelector('#history-filter select[name=decision]').value = 'deny';",
        json!([]),
    );
    b.click(&b.find_all("#history-filter button[type=submit]")[0]);
    let rows = b.wait_for("#history-rows tr", 1);
    assert!(b.text(&rows[0]).contains("git push origin page-deny"));
    // Revoking in the page removes the grant from the store. The table
    // still holds the rows of the first visit and is re-rendered when the
    // tab's fetch returns: empty it first, so the buttons clicked below are
    // the ones of the fresh rendering and not replaced under the click.
    b.js(
        "document.getElementById('grant-rows').textContent = '';",
        json!([]),
    );
    b.click(&b.find_all("button[data-tab=grants]")[0]);
    b.wait_for("#grant-rows tr", 2);
    b.click(&b.find_all("#grant-rows button.revoke")[0]);
    // The first click arms the button; the second, on the armed one, revokes.
    let armed = b.wait_for("#grant-rows button.revoke.armed", 1);
    b.click(&armed[0]);
    b.wait_for("#grant-rows tr", 1);
    let after = approvals(&env);
    assert_eq!(
        after.matches("git push origin page-").count(),
        1,
        "one grant left: {after}"
    );
}

/// The session token of a login redirect (`/#csrf=TOKEN`).
fn location_token(location: &str) -> String {
    location
        .strip_prefix("/#csrf=")
        .unwrap_or_else(|| panic!("no token in the redirect: {location}"))
        .to_string()
}

#[test]
fn without_the_login_or_with_a_foreign_host_nothing_is_served() {
    let _g = serial();
    let env = Env::new();
    let svc = Serve::start(&env);
    let addr = addr_of(&svc.url);
    let command = "git push origin hunter2-branch";
    let hook = Hook::start(&env, "claude-code", "s1", command, 120);
    env.wait_pending(1);
    // Raw HTTP: no cookie ⇒ nothing; a foreign Host even with a valid
    // cookie ⇒ nothing (DNS rebinding).
    for path in [
        "/",
        "/api/pending",
        "/api/state",
        "/api/events",
        "/api/history",
    ] {
        let r = http(addr, "GET", path, &[], None);
        assert!(!r.body.contains("hunter2"), "{path}: {}", r.body);
        assert_ne!(r.status, 200, "{path} without the cookie");
    }
    let login = shellgate_serve::client::login_url(&env.state()).expect("login link");
    let path = login.split_once(&addr.to_string()).expect("path").1;
    let r = http(addr, "GET", path, &[], None);
    assert_eq!(r.status, 303, "{}", r.body);
    let login_redirect = r.header("location").unwrap_or("").to_string();
    let cookie = r
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .expect("cookie")
        .to_string();
    // The cookie alone opens nothing (a browser sends it to every port of
    // 127.0.0.1); with the session's token from the redirect's fragment it
    // works.
    let r = http(addr, "GET", "/api/pending", &[("Cookie", &cookie)], None);
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(!r.body.contains("hunter2"), "{}", r.body);
    let csrf = location_token(&login_redirect);
    let r = http(
        addr,
        "GET",
        "/api/pending",
        &[("Cookie", &cookie), ("X-Shellgate-CSRF", &csrf)],
        None,
    );
    assert_eq!(r.status, 200);
    assert!(
        r.body.contains("hunter2"),
        "the cookie and token work: {}",
        r.body
    );
    let foreign = format!("evil.example:{}", addr.port());
    for path in ["/", "/api/pending", "/api/state", "/api/history"] {
        let r = http(
            addr,
            "GET",
            path,
            &[("Host", &foreign), ("Cookie", &cookie)],
            None,
        );
        assert_eq!(r.status, 421, "{path}: {}", r.body);
        assert!(!r.body.contains("hunter2"), "{path}: {}", r.body);
    }
    // The same in the browser, when Chromium is there.
    if let Some((chromium, driver)) = browser_tools("without_the_login") {
        let b = Browser::open(&chromium, &driver);
        b.goto(&svc.url);
        let src = b.js("return document.documentElement.outerHTML", json!([]));
        let src = src.as_str().unwrap_or("");
        assert!(src.contains("Not logged in"), "{src}");
        assert!(!src.contains("hunter2"), "{src}");
        assert!(b.find_all("article.card").is_empty());
        b.goto(&format!("{}api/pending", svc.url));
        let body = b.js("return document.body.innerText", json!([]));
        assert!(!body.as_str().unwrap_or("").contains("hunter2"), "{body}");
        // With the login link the request shows.
        b.goto(&svc.login);
        let cards = b.wait_for("article.card", 1);
        assert!(b.text(&cards[0]).contains(command));
    }
    let id = env.id_of(&env.wait_pending(1), command);
    assert_eq!(env.answer(&id, "deny").status.code(), Some(0));
    assert_eq!(hook.finish().permission(), "deny");
}

#[test]
fn screenshot_of_requests_published_by_real_hooks() {
    let _g = serial();
    let Some((chromium, driver)) = browser_tools("screenshot") else {
        return;
    };
    let env = Env::with("alice", "webshop");
    let svc = Serve::start(&env);
    let b = Browser::open(&chromium, &driver);
    b.goto(&svc.login);
    b.wait_for("#pending-empty:not([hidden])", 1);
    let h1 = Hook::start(
        &env,
        "claude-code",
        "claude-7f3a",
        "git push origin feature/login",
        120,
    );
    b.wait_for("article.card", 1);
    let h2 = Hook::start(
        &env,
        "gemini",
        "gemini-42",
        "npm ci && npm run build | tee build.log",
        120,
    );
    b.wait_for("article.card", 2);
    std::thread::sleep(Duration::from_millis(1200));
    let png = b.screenshot_png();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    assert!(png.len() > 10_000, "a real picture ({} bytes)", png.len());
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-cli.png");
    std::fs::write(&target, &png).expect("write png");
    if std::env::var("SHELLGATE_UPDATE_SCREENSHOT").as_deref() == Ok("1") {
        let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/serve.png");
        std::fs::write(&docs, &png).expect("write docs/serve.png");
    }
    for r in env.wait_pending(2) {
        let id = r["id"].as_str().expect("id");
        assert_eq!(env.answer(id, "deny").status.code(), Some(0));
    }
    assert_eq!(h1.finish().permission(), "deny");
    let out = h2.finish();
    assert!(out.stdout.contains("\"deny\""), "{}", out.stdout);
}
