//! The page's HTTP side: login, cookie, Host/Origin/CSRF checks, the JSON
//! API and the event stream, spoken over raw HTTP/1.1 so every header is ours.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;
use shellgate_serve::client::{self, ClientOutcome};
use shellgate_serve::Verdict;

const SECRET: &str = "deploy --token=hunter2-SECRET";

fn publish_in_background(
    svc: &Service,
    cmd: &str,
) -> std::thread::JoinHandle<client::ClientOutcome> {
    let state = svc.state();
    let req = request(cmd, &ALL);
    std::thread::spawn(move || {
        client::publish_and_wait(&state, &req, Instant::now() + Duration::from_secs(30)).unwrap()
    })
}

#[test]
fn login_token_sets_a_strict_httponly_cookie_once_and_redirects_without_it() {
    let svc = Service::start();
    let url = svc.h().login_url().to_string();
    assert!(
        url.starts_with(&format!("http://{}/login?token=", svc.addr())),
        "{url}"
    );
    let token = url.rsplit('=').next().unwrap();
    assert_eq!(token.len(), 32);
    let path = format!("/login?token={token}");
    let r = http(svc.addr(), "GET", &path, &[], None);
    assert_eq!(r.status, 303);
    // The redirect drops the login token; the session's token rides in the
    // fragment, which the browser never sends to a server.
    let location = r.header("location").unwrap().to_string();
    let csrf = location
        .strip_prefix("/#csrf=")
        .unwrap_or_else(|| panic!("{location}"))
        .to_string();
    assert_eq!(csrf.len(), 32);
    assert!(!location.contains(token), "redirect drops the login token");
    let cookie = r.header("set-cookie").unwrap();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");
    assert!(!cookie.contains(token), "cookie is not the token");
    let pair = cookie.split(';').next().unwrap().to_string();
    // Single use.
    let again = http(svc.addr(), "GET", &path, &[], None);
    assert_eq!(again.status, 401);
    assert!(again.header("set-cookie").is_none());
    // Wrong tokens too.
    let wrong = http(
        svc.addr(),
        "GET",
        "/login?token=0123456789abcdef0123456789abcdef",
        &[],
        None,
    );
    assert_eq!(wrong.status, 401);
    let none = http(svc.addr(), "GET", "/login", &[], None);
    assert_eq!(none.status, 401);
    // The cookie opens the page; the API needs the session's token too.
    let page = http(svc.addr(), "GET", "/", &[("Cookie", &pair)], None);
    assert_eq!(page.status, 200);
    assert!(page.body.contains("pending-list"));
    assert!(!page.body.contains(&csrf));
    let st = http(
        svc.addr(),
        "GET",
        "/api/state",
        &[("Cookie", &pair), ("X-Shellgate-CSRF", &csrf)],
        None,
    );
    assert_eq!(st.status, 200);
    assert_eq!(st.json()["csrf"].as_str().unwrap(), csrf);
}

#[test]
fn without_the_cookie_nothing_of_a_pending_request_is_served() {
    let svc = Service::start();
    let w = publish_in_background(&svc, SECRET);
    wait_pending(&svc.state(), 1);
    let bogus = "shellgate_1=0123456789abcdef0123456789abcdef"
        .replace("shellgate_1", &format!("shellgate_{}", svc.addr().port()));
    for cookie in [None, Some(bogus.as_str()), Some("other=1")] {
        let hdrs: Vec<(&str, &str)> = cookie.map(|c| vec![("Cookie", c)]).unwrap_or_default();
        for path in [
            "/",
            "/api/state",
            "/api/pending",
            "/api/events",
            "/api/history",
            "/api/grants",
            "/api/sessions",
        ] {
            let r = http(svc.addr(), "GET", path, &hdrs, None);
            assert_eq!(r.status, 401, "{path} with {cookie:?}: {}", r.status);
            assert!(!r.body.contains("hunter2"), "{path} leaked the command");
            assert!(!r.body.contains("deploy"), "{path} leaked the command");
        }
        let r = http(
            svc.addr(),
            "POST",
            "/api/answer",
            &[&hdrs[..], &[("Origin", &svc.origin())]].concat(),
            Some(&json!({"id": "x", "option": "approve_once"}).to_string()),
        );
        assert_eq!(r.status, 401);
    }
    assert!(svc.backend.applied().is_empty());
    let id = client::list_pending(&svc.state()).unwrap()[0].id.clone();
    client::answer(&svc.state(), &id, "deny").unwrap();
    w.join().unwrap();
}

#[test]
fn a_foreign_host_gets_nothing_even_with_a_valid_cookie() {
    let svc = Service::start();
    let cookie = svc.login();
    let w = publish_in_background(&svc, SECRET);
    wait_pending(&svc.state(), 1);
    let port = svc.addr().port();
    let foreign = [
        "evil.com".to_string(),
        format!("evil.com:{port}"),
        format!("127.0.0.1.evil.com:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "".to_string(),
    ];
    for host in &foreign {
        for path in [
            "/",
            "/api/state",
            "/api/pending",
            "/api/events",
            "/app.js",
            "/login?token=x",
        ] {
            let r = http(
                svc.addr(),
                "GET",
                path,
                &[("Host", host), ("Cookie", &cookie)],
                None,
            );
            assert_eq!(r.status, 421, "Host {host:?} {path}");
            assert!(!r.body.contains("hunter2"));
        }
    }
    // The login token is not consumed by a foreign-Host request.
    let token_url = svc.h().new_login_url().unwrap();
    let path = token_url
        .split_once(&svc.addr().to_string())
        .unwrap()
        .1
        .to_string();
    let r = http(svc.addr(), "GET", &path, &[("Host", "evil.com")], None);
    assert_eq!(r.status, 421);
    let r = http(svc.addr(), "GET", &path, &[], None);
    assert_eq!(r.status, 303);
    // localhost:PORT is the same service.
    let r = http(
        svc.addr(),
        "GET",
        "/api/pending",
        &[
            ("Host", &format!("localhost:{port}")),
            ("Cookie", &cookie),
            ("X-Shellgate-CSRF", &svc.csrf(&cookie)),
        ],
        None,
    );
    assert_eq!(r.status, 200);
    assert!(r.body.contains("hunter2"));
    let id = client::list_pending(&svc.state()).unwrap()[0].id.clone();
    client::answer(&svc.state(), &id, "deny").unwrap();
    w.join().unwrap();
}

#[test]
fn state_changes_need_our_origin_and_the_csrf_token() {
    let svc = Service::start();
    let cookie = svc.login();
    let csrf = svc.csrf(&cookie);
    let w = publish_in_background(&svc, "make deploy");
    let id = wait_pending(&svc.state(), 1)[0].id.clone();
    let body = json!({"id": id, "option": "approve_once"}).to_string();
    let origin = svc.origin();
    let other_cookie = svc.login();
    let other_csrf = svc.csrf(&other_cookie);
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, u16);
    let cases: Vec<Case> = vec![
        (
            "no Origin",
            vec![("Cookie", &cookie), ("X-Shellgate-CSRF", &csrf)],
            403,
        ),
        (
            "foreign Origin",
            vec![
                ("Cookie", &cookie),
                ("Origin", "http://evil.com"),
                ("X-Shellgate-CSRF", &csrf),
            ],
            403,
        ),
        (
            "null Origin",
            vec![
                ("Cookie", &cookie),
                ("Origin", "null"),
                ("X-Shellgate-CSRF", &csrf),
            ],
            403,
        ),
        (
            "no CSRF",
            vec![("Cookie", &cookie), ("Origin", &origin)],
            403,
        ),
        (
            "wrong CSRF",
            vec![
                ("Cookie", &cookie),
                ("Origin", &origin),
                ("X-Shellgate-CSRF", "0123456789abcdef0123456789abcdef"),
            ],
            403,
        ),
        (
            "another session's CSRF",
            vec![
                ("Cookie", &cookie),
                ("Origin", &origin),
                ("X-Shellgate-CSRF", &other_csrf),
            ],
            403,
        ),
    ];
    for (what, hdrs, want) in &cases {
        let r = http(svc.addr(), "POST", "/api/answer", hdrs, Some(&body));
        assert_eq!(r.status, *want, "{what}: {}", r.body);
    }
    assert!(
        svc.backend.applied().is_empty(),
        "nothing applied by a refused request"
    );
    assert_eq!(client::list_pending(&svc.state()).unwrap().len(), 1);
    // Revoke is guarded the same way.
    let revoke =
        json!({"audience": "personal", "tool": "shell_execute", "verb": "make", "directory": null})
            .to_string();
    let r = http(
        svc.addr(),
        "POST",
        "/api/revoke",
        &[
            ("Cookie", &cookie),
            ("Origin", "http://evil.com"),
            ("X-Shellgate-CSRF", &csrf),
        ],
        Some(&revoke),
    );
    assert_eq!(r.status, 403);
    let r = http(
        svc.addr(),
        "POST",
        "/api/revoke",
        &[("Cookie", &cookie), ("Origin", &origin)],
        Some(&revoke),
    );
    assert_eq!(r.status, 403);
    // The right headers work.
    let ok = http(
        svc.addr(),
        "POST",
        "/api/answer",
        &[
            ("Cookie", &cookie),
            ("Origin", &origin),
            ("X-Shellgate-CSRF", &csrf),
        ],
        Some(&body),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(ok.json()["decision"], "allow");
    assert_eq!(ok.json()["resolution"], "Approved (no save)");
    let ClientOutcome::Answered(r) = w.join().unwrap() else {
        panic!()
    };
    assert_eq!(r.decision, Verdict::Allow);
    assert_eq!(r.via, "page");
}

#[test]
fn answers_over_http_unknown_expired_double_and_not_offered() {
    let svc = Service::start();
    let cookie = svc.login();
    let csrf = svc.csrf(&cookie);
    let origin = svc.origin();
    let post = |body: serde_json::Value| {
        http(
            svc.addr(),
            "POST",
            "/api/answer",
            &[
                ("Cookie", &cookie),
                ("Origin", &origin),
                ("X-Shellgate-CSRF", &csrf),
            ],
            Some(&body.to_string()),
        )
    };
    let r = post(json!({"id": "ffffffffffffffffffffffffffffffff", "option": "approve_once"}));
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"], "unknown_id");
    assert!(r.json()["message"].as_str().unwrap().contains("unknown id"));

    // Expired.
    let state = svc.state();
    let w = std::thread::spawn(move || {
        client::publish_and_wait(
            &state,
            &request("late", &ALL),
            Instant::now() + Duration::from_millis(400),
        )
    });
    let id = wait_pending(&svc.state(), 1)[0].id.clone();
    assert_eq!(w.join().unwrap().unwrap(), ClientOutcome::Expired);
    let r = post(json!({"id": id, "option": "approve_once"}));
    assert_eq!(r.status, 410, "{}", r.body);
    assert_eq!(r.json()["error"], "expired");
    assert!(r.json()["message"].as_str().unwrap().contains("expired"));

    // Not offered, then a double click: one 200, one 409, applied once.
    *svc.backend.delay.lock().unwrap() = Duration::from_millis(300);
    let state = svc.state();
    let w = std::thread::spawn(move || {
        client::publish_and_wait(
            &state,
            &request("rm -rf build", &["approve_once", "deny"]),
            Instant::now() + Duration::from_secs(30),
        )
    });
    let id = wait_pending(&svc.state(), 1)[0].id.clone();
    let r = post(json!({"id": id, "option": "approve_everywhere"}));
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "not_offered");
    let clicks: Vec<_> = (0..2)
        .map(|_| {
            let (addr, c, o, t, id) = (
                svc.addr(),
                cookie.clone(),
                origin.clone(),
                csrf.clone(),
                id.clone(),
            );
            std::thread::spawn(move || {
                http(
                    addr,
                    "POST",
                    "/api/answer",
                    &[("Cookie", &c), ("Origin", &o), ("X-Shellgate-CSRF", &t)],
                    Some(&json!({"id": id, "option": "deny"}).to_string()),
                )
            })
        })
        .collect();
    let mut statuses: Vec<u16> = clicks
        .into_iter()
        .map(|h| h.join().unwrap().status)
        .collect();
    statuses.sort();
    assert_eq!(statuses, vec![200, 409]);
    let r = post(json!({"id": id, "option": "deny"}));
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["message"], "already answered");
    assert_eq!(svc.backend.options_applied_to(&id), vec!["deny"]);
    let ClientOutcome::Answered(res) = w.join().unwrap().unwrap() else {
        panic!()
    };
    assert_eq!(res.decision, Verdict::Deny);
}

#[test]
fn the_event_stream_follows_publishes_and_answers() {
    let svc = Service::start();
    let cookie = svc.login();
    let csrf = svc.csrf(&cookie);
    let mut sse = Sse::open(
        svc.addr(),
        &[("Cookie", &cookie), ("X-Shellgate-CSRF", &csrf)],
    );
    assert_eq!(sse.status, 200);
    assert!(
        sse.headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("content-type")
                && v.starts_with("text/event-stream"))
    );
    let first = sse.next_pending();
    assert_eq!(first["pending"], json!([]));
    let w = publish_in_background(&svc, "cargo publish");
    let list = sse.until(|l| l.len() == 1);
    assert_eq!(list[0]["command"], "cargo publish");
    assert_eq!(list[0]["options"], json!(ALL));
    let id = list[0]["id"].as_str().unwrap().to_string();
    // Answered elsewhere (the CLI twin): it disappears from the stream.
    client::answer(&svc.state(), &id, "approve_session").unwrap();
    sse.until(|l| l.is_empty());
    w.join().unwrap();
    // Expired: disappears too.
    let state = svc.state();
    let w = std::thread::spawn(move || {
        client::publish_and_wait(
            &state,
            &request("short", &ALL),
            Instant::now() + Duration::from_millis(300),
        )
    });
    sse.until(|l| l.len() == 1);
    sse.until(|l| l.is_empty());
    assert_eq!(w.join().unwrap().unwrap(), ClientOutcome::Expired);
}

#[test]
fn history_grants_revoke_and_sessions_through_the_api() {
    let svc = Service::start();
    let cookie = svc.login();
    let csrf = svc.csrf(&cookie);
    let origin = svc.origin();
    for (cmd, opt) in [
        ("make build", "approve_always"),
        ("npm test", "approve_session"),
        ("curl x", "deny"),
    ] {
        let w = publish_in_background(&svc, cmd);
        let id = wait_pending(&svc.state(), 1)[0].id.clone();
        client::answer(&svc.state(), &id, opt).unwrap();
        w.join().unwrap();
    }
    let get = |path: &str| {
        http(
            svc.addr(),
            "GET",
            path,
            &[("Cookie", &cookie), ("X-Shellgate-CSRF", &csrf)],
            None,
        )
    };
    let h = get("/api/history");
    assert_eq!(h.status, 200);
    assert_eq!(h.json().as_array().unwrap().len(), 3);
    let h = get("/api/history?decision=deny");
    assert_eq!(h.json().as_array().unwrap().len(), 1);
    assert_eq!(h.json()[0]["command"], "curl x");
    let h = get("/api/history?verb=make&session=s1&decision=");
    assert_eq!(h.json().as_array().unwrap().len(), 1, "{}", h.body);
    let g = get("/api/grants");
    assert_eq!(g.json()[0]["label"], "make in /home/u/app");
    let s = get("/api/sessions");
    assert_eq!(s.json()[0]["id"], "s1");
    assert_eq!(s.json()[0]["grants"][0]["verb"], "npm");
    let hdrs = [
        ("Cookie", cookie.as_str()),
        ("Origin", origin.as_str()),
        ("X-Shellgate-CSRF", csrf.as_str()),
    ];
    let body = json!({"audience": "personal", "tool": "shell_execute", "verb": "make", "directory": "/home/u/app"}).to_string();
    let r = http(svc.addr(), "POST", "/api/revoke", &hdrs, Some(&body));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["message"],
        "Removed 'make in /home/u/app' from personal / shell_execute."
    );
    let r = http(svc.addr(), "POST", "/api/revoke", &hdrs, Some(&body));
    assert_eq!(r.status, 404);
    assert_eq!(get("/api/grants").json(), json!([]));
}

#[test]
fn every_response_carries_a_strict_content_security_policy() {
    let svc = Service::start();
    let cookie = svc.login();
    for path in ["/", "/app.js", "/api/state", "/nope"] {
        let r = http(svc.addr(), "GET", path, &[("Cookie", &cookie)], None);
        let csp = r.header("content-security-policy").unwrap_or("");
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("default-src 'none'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        assert_eq!(r.header("x-frame-options"), Some("DENY"));
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
        assert_eq!(r.header("cache-control"), Some("no-store"));
    }
    let js = http(svc.addr(), "GET", "/app.js", &[], None);
    assert!(js
        .header("content-type")
        .unwrap()
        .starts_with("text/javascript"));
    assert!(
        !js.body.contains("innerHTML"),
        "the page never parses data as HTML"
    );
    assert!(
        !js.body.contains("http://") && !js.body.contains("https://"),
        "no external URLs"
    );
    let html = http(svc.addr(), "GET", "/", &[("Cookie", &cookie)], None).body;
    assert!(
        !html.contains("<script>") && !html.contains("style="),
        "no inline script or style"
    );
}

#[test]
fn logout_ends_the_page_session() {
    let svc = Service::start();
    let cookie = svc.login();
    let csrf = svc.csrf(&cookie);
    let r = http(
        svc.addr(),
        "POST",
        "/api/logout",
        &[
            ("Cookie", &cookie),
            ("Origin", &svc.origin()),
            ("X-Shellgate-CSRF", &csrf),
        ],
        Some("{}"),
    );
    assert_eq!(r.status, 200);
    let r = http(
        svc.addr(),
        "GET",
        "/api/state",
        &[("Cookie", &cookie), ("X-Shellgate-CSRF", &csrf)],
        None,
    );
    assert_eq!(r.status, 401);
}

#[test]
fn the_cookie_alone_reads_and_changes_nothing() {
    // A browser sends the cookie to every port of 127.0.0.1 (cookies are
    // not scoped by port), so any local server the human opens in that
    // browser receives it. With the cookie alone, nothing is served and
    // nothing can be answered; the session's token is not in any response
    // the cookie alone gets.
    let svc = Service::start();
    let cookie = svc.login();
    let csrf = svc.csrf(&cookie);
    let w = publish_in_background(&svc, SECRET);
    let id = wait_pending(&svc.state(), 1)[0].id.clone();
    let origin = svc.origin();
    for path in [
        "/api/state",
        "/api/pending",
        "/api/events",
        "/api/events?csrf=0123456789abcdef0123456789abcdef",
        "/api/history",
        "/api/grants",
        "/api/sessions",
    ] {
        let r = http(svc.addr(), "GET", path, &[("Cookie", &cookie)], None);
        assert_eq!(r.status, 401, "{path}: {}", r.body);
        assert!(!r.body.contains("hunter2"), "{path} leaked the command");
        assert!(!r.body.contains(&csrf), "{path} leaked the token");
    }
    let page = http(svc.addr(), "GET", "/", &[("Cookie", &cookie)], None);
    assert!(!page.body.contains(&csrf) && !page.body.contains("hunter2"));
    for (path, body) in [
        (
            "/api/answer",
            json!({"id": id, "option": "approve_once"}).to_string(),
        ),
        (
            "/api/revoke",
            json!({"audience": "personal", "tool": "shell_execute", "verb": "make", "directory": null}).to_string(),
        ),
    ] {
        let r = http(
            svc.addr(),
            "POST",
            path,
            &[("Cookie", &cookie), ("Origin", &origin)],
            Some(&body),
        );
        assert_eq!(r.status, 403, "{path}: {}", r.body);
    }
    assert!(svc.backend.applied().is_empty());
    // With the token (the header, or the event stream's query) it works.
    let r = http(
        svc.addr(),
        "GET",
        "/api/pending",
        &[("Cookie", &cookie), ("X-Shellgate-CSRF", &csrf)],
        None,
    );
    assert_eq!(r.status, 200);
    assert!(r.body.contains("hunter2"));
    let sse = Sse::open_path(
        svc.addr(),
        &format!("/api/events?csrf={csrf}"),
        &[("Cookie", &cookie)],
    );
    assert_eq!(sse.status, 200);
    // Not in the query of any other route.
    let r = http(
        svc.addr(),
        "GET",
        &format!("/api/pending?csrf={csrf}"),
        &[("Cookie", &cookie)],
        None,
    );
    assert_eq!(r.status, 401);
    client::answer(&svc.state(), &id, "deny").unwrap();
    w.join().unwrap();
}
