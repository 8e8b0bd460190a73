//! The page and its JSON API (axum). Every request passes [`guard`]: `Host`
//! must name the bound loopback address, state changes need a matching
//! `Origin`, and `/api/*` needs the page-session cookie together with the
//! session's token in `X-Shellgate-CSRF` (the event stream: `?csrf=`), which
//! the page gets only from the login redirect's fragment.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, COOKIE, HOST, LOCATION, ORIGIN,
    REFERRER_POLICY, SET_COOKIE, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::hub::{now_ms, same_secret, AnswerError, Hub};
use crate::types::{BackendError, GrantRef, HistoryFilter};

const INDEX_HTML: &str = include_str!("../assets/index.html");
const LOGIN_HTML: &str = include_str!("../assets/login.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");

/// Header carrying the CSRF token on state-changing API calls.
pub(crate) const CSRF_HEADER: &str = "x-shellgate-csrf";

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'none'";

#[derive(Clone)]
pub(crate) struct App {
    hub: Arc<Hub>,
    /// Accepted `Host` values, lowercase (`127.0.0.1:PORT`, `localhost:PORT`).
    hosts: Arc<Vec<String>>,
    /// Accepted `Origin` values (`http://` + a host above).
    origins: Arc<Vec<String>>,
    cookie: Arc<String>,
}

/// The logged-in page session of a request (set by the guard on `/api/*`).
#[derive(Clone)]
struct PageSession {
    cookie: String,
    csrf: String,
}

pub(crate) fn app(hub: Arc<Hub>, addr: SocketAddr) -> Router {
    let port = addr.port();
    let mut hosts = vec![addr.to_string().to_ascii_lowercase()];
    hosts.push(format!("localhost:{port}"));
    let origins = hosts.iter().map(|h| format!("http://{h}")).collect();
    let state = App {
        hub,
        hosts: Arc::new(hosts),
        origins: Arc::new(origins),
        cookie: Arc::new(format!("shellgate_{port}")),
    };
    Router::new()
        .route("/", get(index))
        .route("/login", get(login))
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/app.css",
            get(|| async { asset("text/css; charset=utf-8", APP_CSS) }),
        )
        .route("/api/state", get(api_state))
        .route("/api/pending", get(api_pending))
        .route("/api/events", get(api_events))
        .route("/api/answer", post(api_answer))
        .route("/api/history", get(api_history))
        .route("/api/grants", get(api_grants))
        .route("/api/revoke", post(api_revoke))
        .route("/api/sessions", get(api_sessions))
        .route("/api/logout", post(api_logout))
        .fallback(|| async { plain(StatusCode::NOT_FOUND, "not found") })
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

fn plain(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{text}\n"),
    )
        .into_response()
}

fn api_error(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(json!({"error": code, "message": message}))).into_response()
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(CONTENT_TYPE, content_type)], body).into_response()
}

/// The value of `name` in a query string (`a=1&b=2`), as sent (tokens are
/// hex: nothing to decode).
fn query_value(query: &str, name: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim().to_string())
}

async fn guard(State(app): State<App>, mut req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase)
        .or_else(|| {
            req.uri()
                .authority()
                .map(|a| a.as_str().to_ascii_lowercase())
        });
    if !host.is_some_and(|h| app.hosts.contains(&h)) {
        return secure(plain(
            StatusCode::MISDIRECTED_REQUEST,
            "misdirected request: this service answers only to its own loopback address",
        ));
    }
    let changes_state = !matches!(*req.method(), Method::GET | Method::HEAD);
    if changes_state {
        let origin_ok = req
            .headers()
            .get(ORIGIN)
            .and_then(|o| o.to_str().ok())
            .is_some_and(|o| app.origins.iter().any(|a| a.eq_ignore_ascii_case(o)));
        if !origin_ok {
            return secure(api_error(
                StatusCode::FORBIDDEN,
                "bad_origin",
                "missing or foreign Origin",
            ));
        }
    }
    if req.uri().path().starts_with("/api/") {
        let cookie = cookie_value(req.headers(), &app.cookie);
        let session = cookie.and_then(|c| app.hub.session_csrf(&c).map(|csrf| (c, csrf)));
        let Some((cookie, csrf)) = session else {
            return secure(api_error(
                StatusCode::UNAUTHORIZED,
                "login_required",
                "log in with the link printed by shellgate serve",
            ));
        };
        // The cookie alone is not enough, for reading either: a browser
        // sends it to every port of this host (cookies are not scoped by
        // port), so any local server the human opens receives it. The
        // session's token reaches the page only in the login redirect's
        // fragment, which no server sees; the page sends it on every call.
        let sent = req
            .headers()
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .or_else(|| {
                // EventSource cannot set headers: the stream takes it in
                // its query.
                (req.uri().path() == "/api/events")
                    .then(|| query_value(req.uri().query().unwrap_or(""), "csrf"))
                    .flatten()
            })
            .unwrap_or_default();
        if !same_secret(&sent, &csrf) {
            return secure(if changes_state {
                api_error(
                    StatusCode::FORBIDDEN,
                    "bad_csrf",
                    "missing or wrong CSRF token",
                )
            } else {
                api_error(
                    StatusCode::UNAUTHORIZED,
                    "login_required",
                    "this page does not hold the session's token: log in with a new link from shellgate serve",
                )
            });
        }
        req.extensions_mut().insert(PageSession { cookie, csrf });
    }
    secure(next.run(req).await)
}

fn secure(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    r
}

async fn index(State(app): State<App>, headers: HeaderMap) -> Response {
    let logged_in = cookie_value(&headers, &app.cookie)
        .and_then(|c| app.hub.session_csrf(&c))
        .is_some();
    if logged_in {
        ([(CONTENT_TYPE, "text/html; charset=utf-8")], INDEX_HTML).into_response()
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(CONTENT_TYPE, "text/html; charset=utf-8")],
            LOGIN_HTML,
        )
            .into_response()
    }
}

#[derive(Deserialize)]
struct LoginQuery {
    #[serde(default)]
    token: String,
}

async fn login(State(app): State<App>, Query(q): Query<LoginQuery>) -> Response {
    match app.hub.login(&q.token) {
        Some((cookie, csrf)) => {
            let set = format!("{}={cookie}; HttpOnly; SameSite=Strict; Path=/", app.cookie);
            // The token goes in the fragment: the browser keeps it (the
            // page moves it into this origin's storage and out of the
            // address bar) and never sends it to a server.
            let location = format!("/#csrf={csrf}");
            let mut r = StatusCode::SEE_OTHER.into_response();
            match (
                HeaderValue::from_str(&set),
                HeaderValue::from_str(&location),
            ) {
                (Ok(c), Ok(l)) => {
                    r.headers_mut().insert(SET_COOKIE, c);
                    r.headers_mut().insert(LOCATION, l);
                }
                _ => {
                    app.hub.logout(&cookie);
                    return plain(StatusCode::INTERNAL_SERVER_ERROR, "cannot log in");
                }
            }
            r
        }
        None => (
            StatusCode::UNAUTHORIZED,
            [(CONTENT_TYPE, "text/html; charset=utf-8")],
            LOGIN_HTML,
        )
            .into_response(),
    }
}

async fn api_state(State(app): State<App>, Extension(s): Extension<PageSession>) -> Response {
    Json(json!({
        "csrf": s.csrf,
        "now_ms": now_ms(),
        "pending": app.hub.snapshot(),
    }))
    .into_response()
}

async fn api_pending(State(app): State<App>) -> Response {
    Json(app.hub.snapshot()).into_response()
}

async fn api_events(State(app): State<App>) -> Response {
    let rx = app.hub.subscribe();
    let stream = futures_util::stream::unfold((rx, true), |(mut rx, first)| async move {
        if !first && rx.changed().await.is_err() {
            return None;
        }
        let snap = Arc::clone(&rx.borrow_and_update());
        let ev = Event::default()
            .event("pending")
            .json_data(json!({"now_ms": now_ms(), "pending": &*snap}))
            .ok()?;
        Some((Ok::<_, Infallible>(ev), (rx, false)))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

#[derive(Deserialize)]
struct AnswerBody {
    id: String,
    option: String,
}

async fn api_answer(State(app): State<App>, Json(b): Json<AnswerBody>) -> Response {
    match app.hub.answer(&b.id, &b.option, "page").await {
        Ok(res) => Json(res).into_response(),
        Err(e) => {
            let status = match e {
                AnswerError::Unknown => StatusCode::NOT_FOUND,
                AnswerError::Expired | AnswerError::Withdrawn => StatusCode::GONE,
                AnswerError::AlreadyAnswered => StatusCode::CONFLICT,
                AnswerError::NotOffered(_) => StatusCode::BAD_REQUEST,
                AnswerError::ApplyFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
                AnswerError::Closing => StatusCode::SERVICE_UNAVAILABLE,
            };
            api_error(status, e.code(), &e.message())
        }
    }
}

async fn blocking<T: serde::Serialize + Send + 'static>(
    app: &App,
    f: impl FnOnce(&dyn crate::Backend) -> Result<T, BackendError> + Send + 'static,
) -> Response {
    let backend = Arc::clone(&app.hub.backend);
    match tokio::task::spawn_blocking(move || f(backend.as_ref())).await {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(BackendError::NotFound(m))) => api_error(StatusCode::NOT_FOUND, "not_found", &m),
        Ok(Err(BackendError::Failed(m))) => {
            api_error(StatusCode::INTERNAL_SERVER_ERROR, "backend", &m)
        }
        Err(_) => api_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        ),
    }
}

async fn api_history(State(app): State<App>, Query(f): Query<HistoryFilter>) -> Response {
    let blank = |o: Option<String>| o.filter(|s| !s.trim().is_empty());
    let f = HistoryFilter {
        session: blank(f.session),
        decision: blank(f.decision),
        verb: blank(f.verb),
        limit: Some(f.limit.unwrap_or(200).min(5000)),
    };
    blocking(&app, move |b| b.history(&f)).await
}

async fn api_grants(State(app): State<App>) -> Response {
    blocking(&app, |b| b.grants()).await
}

async fn api_revoke(State(app): State<App>, Json(g): Json<GrantRef>) -> Response {
    blocking(&app, move |b| b.revoke(&g)).await
}

async fn api_sessions(State(app): State<App>) -> Response {
    blocking(&app, |b| b.sessions()).await
}

async fn api_logout(State(app): State<App>, Extension(s): Extension<PageSession>) -> Response {
    app.hub.logout(&s.cookie);
    let clear = format!(
        "{}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0",
        app.cookie
    );
    let mut r = Json(json!({"ok": true})).into_response();
    if let Ok(v) = HeaderValue::from_str(&clear) {
        r.headers_mut().insert(SET_COOKIE, v);
    }
    r
}
